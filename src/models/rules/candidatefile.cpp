#include "models/rules/candidatefile.h"

#include <QFile>
#include <QFileInfo>
#include <QObject>
#include <QStringList>

namespace kiln {

namespace {

std::nullopt_t refuse(QString *refusal, const QString &why)
{
    if (refusal)
        *refusal = why;
    return std::nullopt;
}

} // namespace

CandidateFile::CandidateFile(QString path, QString source)
    : m_path(std::move(path)), m_source(std::move(source))
{
}

bool CandidateFile::isCandidateFile(const QString &path)
{
    static const QStringList suffixes{QStringLiteral("cu"),  QStringLiteral("cpp"),
                                      QStringLiteral("cc"),  QStringLiteral("cxx"),
                                      QStringLiteral("c++"), QStringLiteral("py")};
    return suffixes.contains(QFileInfo(path).suffix().toLower());
}

std::optional<CandidateFile> CandidateFile::read(const QString &path, QString *refusal)
{
    const QString name = QFileInfo(path).fileName();
    if (!isCandidateFile(path))
        return refuse(refusal,
                      QObject::tr("%1 is not a kernel source (.cu, .cpp, .cc, .cxx)").arg(name));
    QFile file(path);
    if (file.size() > maxBytes)
        return refuse(refusal, QObject::tr("%1 is larger than 1 MiB").arg(name));
    if (!file.open(QIODevice::ReadOnly))
        return refuse(refusal, QObject::tr("cannot read %1: %2").arg(path, file.errorString()));
    const QString source = QString::fromUtf8(file.readAll());
    if (source.trimmed().isEmpty())
        return refuse(refusal, QObject::tr("%1 is empty").arg(name));
    return CandidateFile(path, source);
}

QString CandidateFile::fileName() const
{
    return QFileInfo(m_path).fileName();
}

QString CandidateFile::absoluteFilePath() const
{
    return QFileInfo(m_path).absoluteFilePath();
}

bool CandidateFile::isCuda() const
{
    return QFileInfo(m_path).suffix().toLower() == QLatin1String("cu");
}

} // namespace kiln
