#pragma once

#include "models/notices.h"

#include <QLabel>

namespace kiln {

// The window's status area for notices: the newest one on a single line (a failure in red),
// elided to the room it has, whole in the tooltip together with the ones before it. It keeps a
// width of its own in the status bar, so the run summary beside it cannot crowd it out.
class NoticeLabel : public QLabel
{
    Q_OBJECT

public:
    explicit NoticeLabel(const Notices &notices, QWidget *parent = nullptr);

    QString notice() const { return m_text; } // the whole text shown, not elided
    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void display(const Notices::Notice &notice);
    void blank();
    void elide();

    const Notices &m_notices;
    QString m_text;
};

} // namespace kiln
