#pragma once

#include <QDateTime>
#include <QList>
#include <QObject>
#include <QString>

namespace kiln {

// What the window has told the person, newest last: progress and results (info) and what went
// wrong (failures). The window shows the newest in a status area of its own and a failure also
// in a dialog; the list keeps the ones that were replaced, so none is lost unseen.
class Notices : public QObject
{
    Q_OBJECT

public:
    enum class Kind
    {
        Info,
        Failure
    };
    struct Notice
    {
        Kind kind = Kind::Info;
        QString text;
        QDateTime at;
    };
    static constexpr int kKept = 200;

    using QObject::QObject;

    void inform(const QString &text) { post(Kind::Info, text); }
    void fail(const QString &text) { post(Kind::Failure, text); }
    // The status area goes blank (a transient notice such as "Reading run #3…" is over); the
    // list keeps what was said.
    void clearShown() { emit cleared(); }

    const QList<Notice> &all() const { return m_notices; }
    // The newest `count` notices as lines "hh:mm:ss text", newest first.
    QStringList recent(int count) const;

signals:
    void posted(const kiln::Notices::Notice &notice);
    void cleared();

private:
    void post(Kind kind, const QString &text);

    QList<Notice> m_notices;
};

} // namespace kiln
