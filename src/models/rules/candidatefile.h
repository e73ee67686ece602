#pragma once

#include <QString>
#include <optional>

namespace kiln {

// A hand-written kernel source offered to the workbench (dropped on the window or chosen in a
// file dialog): whether its kind can be judged at all, and its text once it is small enough and
// not empty. Each refusal names the file the way the window shows it.
class CandidateFile
{
public:
    // Larger files are no kernels a person wrote, and would only slow the verifier down.
    static constexpr qint64 maxBytes = 1 << 20;

    // A kernel source by its suffix (.cu, .cpp, .cc, .cxx, .c++, .py), any case.
    static bool isCandidateFile(const QString &path);
    // Reads the file; nullopt and the reason in *refusal when it is no kernel source, too large,
    // unreadable or empty (checked in that order).
    static std::optional<CandidateFile> read(const QString &path, QString *refusal);

    QString path() const { return m_path; }
    QString fileName() const;
    QString absoluteFilePath() const;
    QString source() const { return m_source; }
    // A .cu file: a CUDA kernel; anything else is no CUDA file (C++, or a KernelBench .py).
    bool isCuda() const;

private:
    CandidateFile(QString path, QString source);

    QString m_path;
    QString m_source;
};

} // namespace kiln
