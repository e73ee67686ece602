#include "diffpanel.h"

#include "codeeditor.h"
#include "svgiconengine.h"
#include "ui_diffpanel.h"

#include "models/rundocument.h"

#include <QScrollBar>
#include <QShortcut>

namespace kiln {

namespace {

const QColor removedLine(0xfd, 0xec, 0xec);
const QColor addedLine(0xe8, 0xf6, 0xec);
const QColor fillerLine(0xf2, 0xf3, 0xf5);
const QColor removedChars(0xf5, 0xb5, 0xb5);
const QColor addedChars(0xa8, 0xe0, 0xb5);

} // namespace

DiffPanel::DiffPanel(RunDocument *document, QWidget *parent)
    : QWidget(parent), m_ui(new Ui::DiffPanel), m_document(document), m_leftEditor(new CodeEditor),
      m_rightEditor(new CodeEditor)
{
    m_ui->setupUi(this);
    setObjectName(QStringLiteral("diffPanel"));
    m_ui->splitter->addWidget(m_leftEditor);
    m_ui->splitter->addWidget(m_rightEditor);
    m_ui->swapButton->setIcon(SvgIconEngine::icon(QStringLiteral("swap")));
    m_ui->previousButton->setIcon(SvgIconEngine::icon(QStringLiteral("previous")));
    m_ui->nextButton->setIcon(SvgIconEngine::icon(QStringLiteral("next")));
    for (CodeEditor *editor : {m_leftEditor, m_rightEditor})
        setupEditor(editor);
    connectScrolling();
    connectNavigation();
    connectIdEdits();
    clear(tr("Select a candidate to compare it with its parent."));
}

void DiffPanel::setupEditor(CodeEditor *editor)
{
    // Real line numbers as margin text, because filler rows have none.
    // (setMarginLineNumbers would turn the margin back into a symbol margin.)
    editor->setMarginType(0, QsciScintilla::TextMarginRightJustified);
    editor->setMarginWidth(0, QStringLiteral("00000"));
    m_removedMarker = editor->markerDefine(QsciScintilla::Background, 3);
    m_addedMarker = editor->markerDefine(QsciScintilla::Background, 4);
    m_fillerMarker = editor->markerDefine(QsciScintilla::Background, 5);
    editor->setMarkerBackgroundColor(removedLine, m_removedMarker);
    editor->setMarkerBackgroundColor(addedLine, m_addedMarker);
    editor->setMarkerBackgroundColor(fillerLine, m_fillerMarker);
    m_removedIndicator = editor->indicatorDefine(QsciScintilla::FullBoxIndicator, 10);
    m_addedIndicator = editor->indicatorDefine(QsciScintilla::FullBoxIndicator, 11);
    editor->setIndicatorForegroundColor(removedChars, m_removedIndicator);
    editor->setIndicatorForegroundColor(addedChars, m_addedIndicator);
    editor->SendScintilla(QsciScintillaBase::SCI_INDICSETALPHA, m_removedIndicator, 160);
    editor->SendScintilla(QsciScintillaBase::SCI_INDICSETALPHA, m_addedIndicator, 160);
    editor->setIndicatorDrawUnder(true, m_removedIndicator);
    editor->setIndicatorDrawUnder(true, m_addedIndicator);
    editor->setCaretLineVisible(false);
}

// Both sides scroll together, vertically and horizontally.
void DiffPanel::connectScrolling()
{
    connect(m_leftEditor->verticalScrollBar(), &QScrollBar::valueChanged, this,
            [this] { syncScroll(m_leftEditor, m_rightEditor); });
    connect(m_rightEditor->verticalScrollBar(), &QScrollBar::valueChanged, this,
            [this] { syncScroll(m_rightEditor, m_leftEditor); });
    // Scintilla reports its own scrolling (wheel, keys, programmatic) through UPDATEUI.
    connect(m_leftEditor, &QsciScintillaBase::SCN_UPDATEUI, this, [this](int updated) {
        if (updated & QsciScintillaBase::SC_UPDATE_V_SCROLL)
            syncScroll(m_leftEditor, m_rightEditor);
    });
    connect(m_rightEditor, &QsciScintillaBase::SCN_UPDATEUI, this, [this](int updated) {
        if (updated & QsciScintillaBase::SC_UPDATE_V_SCROLL)
            syncScroll(m_rightEditor, m_leftEditor);
    });
    connect(m_leftEditor->horizontalScrollBar(), &QScrollBar::valueChanged, this, [this](int v) {
        if (!m_syncing) {
            m_syncing = true;
            m_rightEditor->horizontalScrollBar()->setValue(v);
            m_syncing = false;
        }
    });
    connect(m_rightEditor->horizontalScrollBar(), &QScrollBar::valueChanged, this, [this](int v) {
        if (!m_syncing) {
            m_syncing = true;
            m_leftEditor->horizontalScrollBar()->setValue(v);
            m_syncing = false;
        }
    });
}

// Next / previous change (buttons, F7 and Shift+F7) and swapping the sides.
void DiffPanel::connectNavigation()
{
    connect(m_ui->nextButton, &QToolButton::clicked, this, &DiffPanel::nextChange);
    connect(m_ui->previousButton, &QToolButton::clicked, this, &DiffPanel::previousChange);
    auto *next = new QShortcut(QKeySequence(Qt::Key_F7), this);
    next->setContext(Qt::WidgetWithChildrenShortcut);
    connect(next, &QShortcut::activated, this, &DiffPanel::nextChange);
    auto *previous = new QShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F7), this);
    previous->setContext(Qt::WidgetWithChildrenShortcut);
    connect(previous, &QShortcut::activated, this, &DiffPanel::previousChange);
    connect(m_ui->swapButton, &QToolButton::clicked, this, [this] {
        if (m_left && m_right) {
            const qint64 l = m_left;
            const qint64 r = m_right;
            emit rightRequested(l);
            emit leftRequested(r);
        }
    });
}

// An id typed on either side asks for that candidate there.
void DiffPanel::connectIdEdits()
{
    auto parseId = [](const QString &text) {
        QString t = text.trimmed();
        if (t.startsWith(QLatin1Char('#')))
            t.remove(0, 1);
        return t.toLongLong();
    };
    connect(m_ui->leftEdit, &QLineEdit::editingFinished, this, [this, parseId] {
        const qint64 id = parseId(m_ui->leftEdit->text());
        if (id != m_left)
            emit leftRequested(id);
    });
    connect(m_ui->rightEdit, &QLineEdit::editingFinished, this, [this, parseId] {
        const qint64 id = parseId(m_ui->rightEdit->text());
        if (id > 0 && id != m_right)
            emit rightRequested(id);
    });
}

DiffPanel::~DiffPanel() = default;

QString DiffPanel::summaryText() const
{
    return m_ui->summaryLabel->text();
}

void DiffPanel::clear(const QString &why)
{
    m_left = 0;
    m_right = 0;
    m_diff = SideBySideDiff();
    for (CodeEditor *editor : {m_leftEditor, m_rightEditor}) {
        editor->markerDeleteAll();
        editor->clearMarginText();
        editor->setText(QString());
    }
    m_ui->leftEdit->clear();
    m_ui->rightEdit->clear();
    m_ui->summaryLabel->setText(
        QStringLiteral("<span style=\"color:#777;\">%1</span>").arg(why.toHtmlEscaped()));
    m_ui->nextButton->setEnabled(false);
    m_ui->previousButton->setEnabled(false);
}

void DiffPanel::showPair(qint64 left, qint64 right)
{
    m_left = left;
    m_right = right;
    render();
}

void DiffPanel::render()
{
    const std::optional<CandidateRecord> right =
        m_right ? m_document->candidate(m_right) : std::nullopt;
    const std::optional<CandidateRecord> left =
        m_left ? m_document->candidate(m_left) : std::nullopt;
    if (!right) {
        clear(tr("Select a candidate to compare it with its parent."));
        return;
    }
    m_ui->leftEdit->setText(left ? QStringLiteral("#%1").arg(left->id) : QString());
    m_ui->rightEdit->setText(QStringLiteral("#%1").arg(right->id));
    m_diff.compute(left ? left->source : QString(), right->source);

    QStringList leftText;
    QStringList rightText;
    leftText.reserve(m_diff.rows().size());
    rightText.reserve(m_diff.rows().size());
    for (const SideBySideDiff::Row &row : m_diff.rows()) {
        leftText << (row.leftLine >= 0 ? m_diff.leftLines().at(row.leftLine) : QString());
        rightText << (row.rightLine >= 0 ? m_diff.rightLines().at(row.rightLine) : QString());
    }
    m_leftEditor->setText(leftText.join(QLatin1Char('\n')));
    m_rightEditor->setText(rightText.join(QLatin1Char('\n')));
    for (CodeEditor *editor : {m_leftEditor, m_rightEditor}) {
        editor->markerDeleteAll();
        editor->clearMarginText();
    }
    for (int i = 0; i < m_diff.rows().size(); ++i) {
        const SideBySideDiff::Row &row = m_diff.rows().at(i);
        if (row.leftLine >= 0)
            m_leftEditor->setMarginText(i, QString::number(row.leftLine + 1), 33 /*line numbers*/);
        if (row.rightLine >= 0)
            m_rightEditor->setMarginText(i, QString::number(row.rightLine + 1), 33);
        switch (row.kind) {
        case SideBySideDiff::Kind::Same:
            break;
        case SideBySideDiff::Kind::Removed:
            m_leftEditor->markerAdd(i, m_removedMarker);
            m_rightEditor->markerAdd(i, m_fillerMarker);
            break;
        case SideBySideDiff::Kind::Added:
            m_leftEditor->markerAdd(i, m_fillerMarker);
            m_rightEditor->markerAdd(i, m_addedMarker);
            break;
        case SideBySideDiff::Kind::Changed:
            m_leftEditor->markerAdd(i, m_removedMarker);
            m_rightEditor->markerAdd(i, m_addedMarker);
            for (const SideBySideDiff::Span &s : row.leftSpans)
                m_leftEditor->fillIndicatorRange(i, s.start, i, s.start + s.length,
                                                 m_removedIndicator);
            for (const SideBySideDiff::Span &s : row.rightSpans)
                m_rightEditor->fillIndicatorRange(i, s.start, i, s.start + s.length,
                                                  m_addedIndicator);
            break;
        }
    }
    QString summary;
    if (!left)
        summary = tr("#%1 has no parent: nothing to compare").arg(right->id);
    else if (m_diff.identical())
        summary = tr("identical sources");
    else
        summary = tr("<span style=\"color:#1a7f37;\"><b>+%1</b></span> "
                     "<span style=\"color:#cf222e;\"><b>−%2</b></span> lines · %3 changes")
                      .arg(m_diff.addedLines())
                      .arg(m_diff.removedLines())
                      .arg(m_diff.hunks().size());
    m_ui->summaryLabel->setText(summary);
    m_ui->nextButton->setEnabled(!m_diff.hunks().isEmpty());
    m_ui->previousButton->setEnabled(!m_diff.hunks().isEmpty());
    m_currentHunk = -1;
    if (!m_diff.hunks().isEmpty())
        goToRow(m_diff.hunks().first());
    else
        goToRow(0);
    m_currentHunk = m_diff.hunks().isEmpty() ? -1 : 0;
}

void DiffPanel::goToRow(int row)
{
    const int top = std::max(0, row - 4);
    m_syncing = true;
    m_leftEditor->setFirstVisibleLine(top);
    m_rightEditor->setFirstVisibleLine(top);
    m_syncing = false;
    m_rightEditor->setCursorPosition(row, 0);
    m_leftEditor->setCursorPosition(row, 0);
}

void DiffPanel::nextChange()
{
    const QVector<int> &hunks = m_diff.hunks();
    if (hunks.isEmpty())
        return;
    m_currentHunk = m_currentHunk + 1 < hunks.size() ? m_currentHunk + 1 : 0;
    goToRow(hunks.at(m_currentHunk));
}

void DiffPanel::previousChange()
{
    const QVector<int> &hunks = m_diff.hunks();
    if (hunks.isEmpty())
        return;
    m_currentHunk = m_currentHunk > 0 ? m_currentHunk - 1 : int(hunks.size()) - 1;
    goToRow(hunks.at(m_currentHunk));
}

void DiffPanel::syncScroll(CodeEditor *from, CodeEditor *to)
{
    if (m_syncing)
        return;
    m_syncing = true;
    to->setFirstVisibleLine(from->firstVisibleLine());
    m_syncing = false;
}

} // namespace kiln
