#include "codeeditor.h"

#include "cudalexer.h"

#include "models/verdictstyle.h"

#include <QToolTip>

namespace kiln {

CodeEditor::CodeEditor(QWidget *parent) : QsciScintilla(parent), m_lexer(new CudaLexer(this))
{
    setLexer(m_lexer);
    setUtf8(true);
    setReadOnly(true);
    setTabWidth(4);
    setIndentationGuides(true);
    setCaretLineVisible(true);
    setCaretLineBackgroundColor(QColor(0xf3, 0xf6, 0xfa));
    setBraceMatching(QsciScintilla::SloppyBraceMatch);
    setWrapMode(QsciScintilla::WrapNone);

    QFont marginFont(QStringLiteral("DejaVu Sans Mono"));
    marginFont.setPointSize(9);
    setMarginsFont(marginFont);
    setMarginsBackgroundColor(QColor(0xf6, 0xf7, 0xf9));
    setMarginsForegroundColor(QColor(0x8a, 0x93, 0x9e));
    setMarginType(0, QsciScintilla::NumberMargin);
    setMarginLineNumbers(0, true);
    setMarginWidth(0, QStringLiteral("00000"));
    setMarginType(1, QsciScintilla::SymbolMargin);
    setMarginWidth(1, 16);
    setMarginSensitivity(1, true);
    setFolding(QsciScintilla::NoFoldStyle);

    m_flagMarker = markerDefine(QsciScintilla::Circle, 0);
    setMarkerBackgroundColor(VerdictStyle::color(Verdict::Flagged), m_flagMarker);
    setMarkerForegroundColor(VerdictStyle::color(Verdict::Flagged).darker(140), m_flagMarker);
    m_errorMarker = markerDefine(QsciScintilla::RightArrow, 1);
    setMarkerBackgroundColor(VerdictStyle::color(Verdict::CompileError), m_errorMarker);
    setMarkerForegroundColor(VerdictStyle::color(Verdict::CompileError).darker(140), m_errorMarker);
    m_warningMarker = markerDefine(QsciScintilla::RightTriangle, 2);
    setMarkerBackgroundColor(QColor(0xe6, 0x9b, 0x00), m_warningMarker);
    setMarginMarkerMask(1, (1 << m_flagMarker) | (1 << m_errorMarker) | (1 << m_warningMarker));

    m_flagIndicator = indicatorDefine(QsciScintilla::SquiggleIndicator, 8);
    setIndicatorForegroundColor(VerdictStyle::color(Verdict::Flagged), m_flagIndicator);
    m_errorIndicator = indicatorDefine(QsciScintilla::SquiggleIndicator, 9);
    setIndicatorForegroundColor(VerdictStyle::color(Verdict::CompileError), m_errorIndicator);

    // Annotation styles live after the lexer's styles.
    m_flagAnnotationStyle = 100;
    m_errorAnnotationStyle = 101;
    QFont noteFont(QStringLiteral("DejaVu Sans"));
    noteFont.setPointSize(9);
    auto defineStyle = [&](int style, const QColor &fore, const QColor &back) {
        SendScintilla(SCI_STYLESETFORE, style, fore);
        SendScintilla(SCI_STYLESETBACK, style, back);
        SendScintilla(SCI_STYLESETFONT, style, noteFont.family().toUtf8().constData());
        SendScintilla(SCI_STYLESETSIZE, style, noteFont.pointSize());
    };
    defineStyle(m_flagAnnotationStyle, QColor(0x4a, 0x1b, 0x60), QColor(0xf3, 0xe9, 0xf8));
    defineStyle(m_errorAnnotationStyle, QColor(0x7a, 0x1a, 0x17), QColor(0xfc, 0xeb, 0xea));
    setAnnotationDisplay(QsciScintilla::AnnotationBoxed);

    SendScintilla(SCI_SETMOUSEDWELLTIME, 350);
    connect(this, &QsciScintillaBase::SCN_DWELLSTART, this, &CodeEditor::showNote);
    connect(this, &QsciScintillaBase::SCN_DWELLEND, this, [] { QToolTip::hideText(); });
    connect(this, &QsciScintilla::marginClicked, this,
            [this](int margin, int line, Qt::KeyboardModifiers) {
                Q_UNUSED(margin);
                const QString note = m_noteText.value(line + 1);
                if (!note.isEmpty()) {
                    int x = 0;
                    const int y = int(SendScintilla(SCI_POINTYFROMPOSITION, 0,
                                                    SendScintilla(SCI_POSITIONFROMLINE, line)));
                    QToolTip::showText(mapToGlobal(QPoint(x + 20, y + 16)), note, this);
                }
            });
}

void CodeEditor::clearLineNotes()
{
    m_notes.clear();
    m_noteText.clear();
    markerDeleteAll();
    clearAnnotations();
    const int last = lines() - 1;
    if (last >= 0) {
        clearIndicatorRange(0, 0, last, lineLength(last), m_flagIndicator);
        clearIndicatorRange(0, 0, last, lineLength(last), m_errorIndicator);
    }
}

void CodeEditor::setLineNotes(const QList<LineNote> &notes)
{
    clearLineNotes();
    m_notes = notes;
    QHash<int, QStringList> annotations;
    QHash<int, bool> isFlag;
    for (const LineNote &note : notes) {
        const int line = note.line - 1;
        if (line < 0 || line >= lines())
            continue;
        int marker = m_flagMarker;
        int indicator = m_flagIndicator;
        QString prefix = QStringLiteral("⚑ ");
        if (note.kind == NoteKind::Error) {
            marker = m_errorMarker;
            indicator = m_errorIndicator;
            prefix = QStringLiteral("✘ ");
        } else if (note.kind == NoteKind::Warning) {
            marker = m_warningMarker;
            indicator = m_errorIndicator;
            prefix = QStringLiteral("⚠ ");
        }
        markerAdd(line, marker);
        // Underline the text of the line, not its indentation.
        const QString lineText = text(line);
        int start = 0;
        while (start < lineText.size() && lineText.at(start).isSpace())
            ++start;
        int end = int(lineText.size());
        while (end > start && lineText.at(end - 1).isSpace())
            --end;
        if (end > start)
            fillIndicatorRange(line, start, line, end, indicator);
        annotations[line] << prefix + note.text;
        isFlag[line] = isFlag.value(line, false) || note.kind == NoteKind::Flag;
        QString &joined = m_noteText[note.line];
        if (!joined.isEmpty())
            joined += QLatin1Char('\n');
        joined += prefix + note.text;
    }
    for (auto it = annotations.cbegin(); it != annotations.cend(); ++it)
        annotate(it.key(), it.value().join(QLatin1Char('\n')),
                 isFlag.value(it.key()) ? m_flagAnnotationStyle : m_errorAnnotationStyle);
}

unsigned CodeEditor::markersAt(int line) const
{
    return markersAtLine(line - 1);
}

void CodeEditor::goToLine(int line)
{
    const int l = std::clamp(line - 1, 0, std::max(0, lines() - 1));
    setCursorPosition(l, 0);
    setSelection(l, 0, l, lineLength(l));
    setFirstVisibleLine(std::max(0, l - 5));
    ensureLineVisible(l);
}

void CodeEditor::showNote(int position, int x, int y)
{
    Q_UNUSED(x);
    int line = -1;
    if (position >= 0) {
        int index = 0;
        lineIndexFromPosition(position, &line, &index);
    } else {
        line = lineAt(QPoint(x + 40, y));
        if (line < 0)
            line = int(
                SendScintilla(SCI_LINEFROMPOSITION, SendScintilla(SCI_POSITIONFROMPOINT, 40, y)));
    }
    const QString note = m_noteText.value(line + 1);
    if (!note.isEmpty())
        QToolTip::showText(mapToGlobal(QPoint(x, y + 12)), note, this);
}

} // namespace kiln
