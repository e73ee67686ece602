#include "codeeditor.h"

#include "verifier/screen/native/symbolnames.h"

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

    defineNoteStyles();

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

// Markers, squiggles and annotation boxes of the notes: a hard flag in the flagged purple, a
// suspicious one amber, telemetry grey; compiler errors red and warnings amber.
void CodeEditor::defineNoteStyles()
{
    const QColor hard = VerdictStyle::flagTierColor(QStringLiteral("hard"));
    const QColor suspicious = VerdictStyle::flagTierColor(QStringLiteral("suspicious"));
    const QColor telemetry = VerdictStyle::flagTierColor(QStringLiteral("telemetry"));
    auto defineMarker = [this](MarkerSymbol symbol, int number, const QColor &color) {
        const int marker = markerDefine(symbol, number);
        setMarkerBackgroundColor(color, marker);
        setMarkerForegroundColor(color.darker(140), marker);
        return marker;
    };
    m_flagMarker = defineMarker(QsciScintilla::Circle, 0, hard);
    m_errorMarker =
        defineMarker(QsciScintilla::RightArrow, 1, VerdictStyle::color(Verdict::CompileError));
    m_warningMarker = markerDefine(QsciScintilla::RightTriangle, 2);
    setMarkerBackgroundColor(QColor(0xe6, 0x9b, 0x00), m_warningMarker);
    m_suspiciousMarker = defineMarker(QsciScintilla::Circle, 3, suspicious);
    m_telemetryMarker = defineMarker(QsciScintilla::Circle, 4, telemetry);
    setMarginMarkerMask(1, (1 << m_flagMarker) | (1 << m_errorMarker) | (1 << m_warningMarker) |
                               (1 << m_suspiciousMarker) | (1 << m_telemetryMarker));

    auto defineSquiggle = [this](int number, const QColor &color) {
        const int indicator = indicatorDefine(QsciScintilla::SquiggleIndicator, number);
        setIndicatorForegroundColor(color, indicator);
        return indicator;
    };
    m_flagIndicator = defineSquiggle(8, hard);
    m_errorIndicator = defineSquiggle(9, VerdictStyle::color(Verdict::CompileError));
    m_suspiciousIndicator = defineSquiggle(10, suspicious);
    m_telemetryIndicator = defineSquiggle(11, telemetry);

    // Annotation styles live after the lexer's styles.
    m_flagAnnotationStyle = 100;
    m_errorAnnotationStyle = 101;
    m_suspiciousAnnotationStyle = 102;
    m_telemetryAnnotationStyle = 103;
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
    defineStyle(m_suspiciousAnnotationStyle, QColor(0x5c, 0x3d, 0x00), QColor(0xfd, 0xf3, 0xdc));
    defineStyle(m_telemetryAnnotationStyle, QColor(0x3c, 0x44, 0x4f), QColor(0xf1, 0xf3, 0xf5));
    setAnnotationDisplay(QsciScintilla::AnnotationBoxed);
}

CodeEditor::LineNote CodeEditor::flagNote(const CheatFlag &flag, int line)
{
    NoteKind kind = NoteKind::TelemetryFlag;
    if (flag.isHard())
        kind = NoteKind::Flag;
    else if (flag.isSuspicious())
        kind = NoteKind::SuspiciousFlag;
    return {line, kind,
            wrapped(flag.label() + QStringLiteral(": ") + SymbolNames::readable(flag.message))};
}

// Annotations do not wrap: a long flag message ran off the editor's right edge.
QString CodeEditor::wrapped(const QString &text, int columns)
{
    QStringList lines;
    QString line;
    for (const QString &word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (!line.isEmpty() && line.size() + 1 + word.size() > columns) {
            lines << line;
            line.clear();
        }
        line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + word;
    }
    if (!line.isEmpty())
        lines << line;
    return lines.join(QLatin1Char('\n'));
}

CodeEditor::NoteLook CodeEditor::look(NoteKind kind) const
{
    switch (kind) {
    case NoteKind::Flag:
        return {m_flagMarker, m_flagIndicator, m_flagAnnotationStyle, 0, QStringLiteral("⚑ ")};
    case NoteKind::SuspiciousFlag:
        return {m_suspiciousMarker, m_suspiciousIndicator, m_suspiciousAnnotationStyle, 1,
                QStringLiteral("⚑ ")};
    case NoteKind::TelemetryFlag:
        return {m_telemetryMarker, m_telemetryIndicator, m_telemetryAnnotationStyle, 2,
                QStringLiteral("⚑ ")};
    case NoteKind::Error:
        return {m_errorMarker, m_errorIndicator, m_errorAnnotationStyle, 3, QStringLiteral("✘ ")};
    case NoteKind::Warning:
        break;
    }
    return {m_warningMarker, m_errorIndicator, m_errorAnnotationStyle, 3, QStringLiteral("⚠ ")};
}

void CodeEditor::clearLineNotes()
{
    m_notes.clear();
    m_noteText.clear();
    markerDeleteAll();
    clearAnnotations();
    const int last = lines() - 1;
    if (last >= 0) {
        for (int indicator :
             {m_flagIndicator, m_errorIndicator, m_suspiciousIndicator, m_telemetryIndicator})
            clearIndicatorRange(0, 0, last, lineLength(last), indicator);
    }
}

void CodeEditor::setLineNotes(const QList<LineNote> &notes)
{
    clearLineNotes();
    m_notes = notes;
    QHash<int, QStringList> annotations;
    QHash<int, NoteLook> boxLook; // per line, the look of its most severe note
    for (const LineNote &note : notes) {
        const int line = note.line - 1;
        if (line < 0 || line >= lines())
            continue;
        const NoteLook noteLook = look(note.kind);
        markerAdd(line, noteLook.marker);
        // Underline the text of the line, not its indentation.
        const QString lineText = text(line);
        int start = 0;
        while (start < lineText.size() && lineText.at(start).isSpace())
            ++start;
        int end = int(lineText.size());
        while (end > start && lineText.at(end - 1).isSpace())
            --end;
        if (end > start)
            fillIndicatorRange(line, start, line, end, noteLook.indicator);
        annotations[line] << noteLook.prefix + note.text;
        if (!boxLook.contains(line) || noteLook.rank < boxLook.value(line).rank)
            boxLook.insert(line, noteLook);
        QString &joined = m_noteText[note.line];
        if (!joined.isEmpty())
            joined += QLatin1Char('\n');
        joined += noteLook.prefix + note.text;
    }
    for (auto it = annotations.cbegin(); it != annotations.cend(); ++it)
        annotate(it.key(), it.value().join(QLatin1Char('\n')), boxLook.value(it.key()).style);
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
