#include "steadylabel.h"

namespace kiln {

SteadyLabel::SteadyLabel(QWidget *parent) : QWidget(parent), m_label(new QLabel(this))
{
    m_label->setTextFormat(Qt::RichText);
    m_label->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

QSize SteadyLabel::sizeHint() const
{
    return {fontMetrics().averageCharWidth() * 40, fontMetrics().height() + 6};
}

void SteadyLabel::resizeEvent(QResizeEvent *)
{
    m_label->setGeometry(rect());
}

} // namespace kiln
