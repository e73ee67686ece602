#pragma once

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
    enum class NoteKind
    {
        Flag,
        Error,
        Warning
    };
    struct LineNote
    {
        int line = 0; // 1-based
        NoteKind kind = NoteKind::Flag;
        QString text;
    };

    explicit CodeEditor(QWidget *parent = nullptr);

    void setLineNotes(const QList<LineNote> &notes);
    void clearLineNotes();
    QList<LineNote> lineNotes() const { return m_notes; }
    QString noteAt(int line) const { return m_noteText.value(line); } // 1-based
    // Marker mask of a 1-based line (tests).
    unsigned markersAt(int line) const;
    void goToLine(int line); // 1-based; selects the line and scrolls it into view

    int flagMarker() const { return m_flagMarker; }
    int errorMarker() const { return m_errorMarker; }

protected:
    void showNote(int position, int x, int y);

private:
    CudaLexer *m_lexer;
    QList<LineNote> m_notes;
    QHash<int, QString> m_noteText;
    int m_flagMarker = 0;
    int m_errorMarker = 1;
    int m_warningMarker = 2;
    int m_flagIndicator = 8;
    int m_errorIndicator = 9;
    int m_flagAnnotationStyle = 0;
    int m_errorAnnotationStyle = 0;
};

} // namespace kiln
