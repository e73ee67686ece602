#pragma once

#include "core/cheatflag.h"

#include <Qsci/qsciscintilla.h>

#include <QHash>
#include <QList>

namespace kiln {

class CudaLexer;

// A read-only QScintilla editor for kernels: CUDA / C++ highlighting, line numbers, and notes on
// lines (cheat flags, compiler errors and warnings) shown as a margin symbol, a squiggle under the
// line and a boxed annotation carrying the explanation; hovering the symbol repeats it.
class CodeEditor : public QsciScintilla
{
    Q_OBJECT

public:
    // A cheat flag's note takes its tier's colour: hard purple, suspicious amber, telemetry grey.
    enum class NoteKind
    {
        Flag, // a hard flag
        SuspiciousFlag,
        TelemetryFlag,
        Error,
        Warning
    };
    struct LineNote
    {
        int line = 0; // 1-based
        NoteKind kind = NoteKind::Flag;
        QString text;
    };
    // The note of a cheat flag on one of its lines: "[tier] id: message" in its tier's colour.
    static LineNote flagNote(const CheatFlag &flag, int line);
    // Words broken into lines of at most `columns` characters.
    static QString wrapped(const QString &text, int columns = 100);

    explicit CodeEditor(QWidget *parent = nullptr);

    void setLineNotes(const QList<LineNote> &notes);
    void clearLineNotes();
    QList<LineNote> lineNotes() const { return m_notes; }
    QString noteAt(int line) const { return m_noteText.value(line); } // 1-based
    // Marker mask of a 1-based line (tests).
    unsigned markersAt(int line) const;
    void goToLine(int line); // 1-based; selects the line and scrolls it into view

    int flagMarker() const { return m_flagMarker; }
    int suspiciousMarker() const { return m_suspiciousMarker; }
    int telemetryMarker() const { return m_telemetryMarker; }
    int errorMarker() const { return m_errorMarker; }

protected:
    void showNote(int position, int x, int y);

private:
    // How a kind of note is drawn; rank orders kinds by severity (a line's box takes the most
    // severe note's style).
    struct NoteLook
    {
        int marker = 0;
        int indicator = 0;
        int style = 0;
        int rank = 0;
        QString prefix;
    };
    void defineNoteStyles();
    NoteLook look(NoteKind kind) const;

    CudaLexer *m_lexer;
    QList<LineNote> m_notes;
    QHash<int, QString> m_noteText;
    int m_flagMarker = 0;
    int m_errorMarker = 1;
    int m_warningMarker = 2;
    int m_suspiciousMarker = 3;
    int m_telemetryMarker = 4;
    int m_flagIndicator = 8;
    int m_errorIndicator = 9;
    int m_suspiciousIndicator = 10;
    int m_telemetryIndicator = 11;
    int m_flagAnnotationStyle = 0;
    int m_errorAnnotationStyle = 0;
    int m_suspiciousAnnotationStyle = 0;
    int m_telemetryAnnotationStyle = 0;
};

} // namespace kiln
