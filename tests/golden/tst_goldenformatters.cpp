// Golden files (goldenfile.h) of what the formatters render for the fixed workspace
// (goldenworkspace.h): the window's verifier report and transcript panels for every candidate,
// and the run documents of RunReport that `kiln-cli run`, `report` and `export` print.

#include "engine/reports/runreport.h"
#include "goldenfile.h"
#include "goldenworkspace.h"
#include "models/reportformatter.h"
#include "models/transcriptformatter.h"
#include "store/runstore.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;
using namespace kiln::test;

namespace {

// The formatters' HTML is one long line; the golden files hold it with a line break added after
// every block-closing tag, so a diff points at the row that changed. A break added after every
// occurrence of tags that never overlap can be taken out again, so two HTML texts are equal
// exactly when their readable forms are.
QString readableHtml(QString html)
{
    for (const char *tag : {"</tr>", "</table>", "</p>", "</h3>", "</h4>", "</pre>", "<br/>"}) {
        const QString closing = QString::fromLatin1(tag);
        html.replace(closing, closing + QLatin1Char('\n'));
    }
    return html;
}

QString heading(const CandidateRecord &c)
{
    return QStringLiteral("<!-- ===== run %1, candidate %2 ===== -->\n").arg(c.runId).arg(c.id);
}

void compareWithGolden(const QString &name, const QString &actual)
{
    const QString problem = GoldenFile(name).check(actual.toUtf8());
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

} // namespace

class TestGoldenFormatters : public QObject
{
    Q_OBJECT

private:
    QList<GoldenWorkspace::Run> m_runs;

private slots:
    void initTestCase()
    {
        // The transcript writes token counts in the default locale: pinned, so the files do not
        // depend on the machine's LANG.
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        m_runs = GoldenWorkspace::runs();
        QVERIFY(!m_runs.isEmpty());
    }

    void verifierReport()
    {
        QString text;
        for (const GoldenWorkspace::Run &run : std::as_const(m_runs)) {
            for (const CandidateRecord &c : run.candidates) {
                if (run.evaluations.contains(c.id))
                    text += heading(c) +
                            readableHtml(ReportFormatter::html(run.evaluations.value(c.id)));
            }
        }
        text += QStringLiteral("<!-- ===== nothing selected ===== -->\n") +
                readableHtml(ReportFormatter::emptyHtml(QStringLiteral("Select a <candidate>.")));
        compareWithGolden(QStringLiteral("verifier-report.html"), text);
    }

    void transcript()
    {
        QString text;
        for (const GoldenWorkspace::Run &run : std::as_const(m_runs)) {
            for (const CandidateRecord &c : run.candidates)
                text += heading(c) + readableHtml(TranscriptFormatter::html(c));
        }
        compareWithGolden(QStringLiteral("transcript.html"), text);
    }

    // Each run's documents from the database the fixture writes: what `kiln-cli run` prints at
    // the end (resultJson), the report's run object (runJson) and the best in words.
    void runReport()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString db = dir.filePath(QStringLiteral("golden.db"));
        const QString problem = GoldenWorkspace::write(db);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        const auto store = RunStore::open(db, RunStore::Mode::ReadOnly);
        QVERIFY(store);
        QJsonArray runs;
        for (const GoldenWorkspace::Run &run : std::as_const(m_runs)) {
            const qint64 id = run.record.id;
            const QJsonObject result = RunReport::resultJson(*store, id);
            runs.append(QJsonObject{
                {QStringLiteral("result"), result},
                {QStringLiteral("run"), RunReport::runJson(*store, id)},
                {QStringLiteral("best_text"),
                 RunReport::bestText(result.value(QStringLiteral("best")).toObject())}});
        }
        compareWithGolden(QStringLiteral("run-report.json"),
                          QString::fromUtf8(QJsonDocument(runs).toJson(QJsonDocument::Indented)));
    }
};

QTEST_GUILESS_MAIN(TestGoldenFormatters)
#include "tst_goldenformatters.moc"
