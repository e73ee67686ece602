#include "app/noticelabel.h"

#include <QFontMetrics>
#include <QResizeEvent>

namespace kiln {

NoticeLabel::NoticeLabel(const Notices &notices, QWidget *parent)
    : QLabel(parent), m_notices(notices)
{
    setObjectName(QStringLiteral("noticeLabel"));
    setTextFormat(Qt::PlainText);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    connect(&notices, &Notices::posted, this, &NoticeLabel::display);
    connect(&notices, &Notices::cleared, this, &NoticeLabel::blank);
}

QSize NoticeLabel::minimumSizeHint() const
{
    // Room for a sentence such as "No candidate 123456 in this run" at any window width.
    return {fontMetrics().averageCharWidth() * 36, QLabel::minimumSizeHint().height()};
}

void NoticeLabel::display(const Notices::Notice &notice)
{
    m_text = notice.text;
    setStyleSheet(notice.kind == Notices::Kind::Failure ? QStringLiteral("color: #b3261e;")
                                                        : QString());
    setToolTip(m_notices.recent(10).join(QLatin1Char('\n')));
    elide();
}

void NoticeLabel::blank()
{
    m_text.clear();
    setStyleSheet(QString());
    setText(QString());
}

void NoticeLabel::resizeEvent(QResizeEvent *event)
{
    QLabel::resizeEvent(event);
    elide();
}

void NoticeLabel::elide()
{
    setText(fontMetrics().elidedText(m_text.simplified(), Qt::ElideRight, qMax(0, width() - 4)));
}

} // namespace kiln
