// A workspace database with a valid header and damaged pages: refused by the store and by every
// kiln-cli command that opens a database, with a clear error, exit status 2, and the file left
// byte for byte as it was (no -wal or -shm beside it).

#include "damageddatabase.h"
#include "golden/goldenworkspace.h"
#include "kilncli.h"
#include "store/runstore.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

using namespace kiln;
using namespace kiln::test;

namespace {

QByteArray digest(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256);
}

} // namespace

class TestDamagedDatabase : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_damaged;
    QByteArray m_digest;

    void expectUntouched()
    {
        QCOMPARE(digest(m_damaged), m_digest);
        QVERIFY(!QFileInfo::exists(m_damaged + QStringLiteral("-wal")));
        QVERIFY(!QFileInfo::exists(m_damaged + QStringLiteral("-shm")));
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_damaged = m_dir.filePath(QStringLiteral("damaged.db"));
        const QString written = GoldenWorkspace::write(m_damaged);
        QVERIFY2(written.isEmpty(), qPrintable(written));
        // Closed cleanly: everything is in the main file, no -wal beside it.
        QVERIFY(!QFileInfo::exists(m_damaged + QStringLiteral("-wal")));
        QVERIFY(damageDatabase(m_damaged));
        m_digest = digest(m_damaged);
    }

    void theStoreRefusesIt()
    {
        for (const RunStore::Mode mode : {RunStore::Mode::ReadOnly, RunStore::Mode::ReadWrite}) {
            QString error;
            QVERIFY(RunStore::open(m_damaged, mode, &error) == nullptr);
            QVERIFY2(error.contains(QStringLiteral("a damaged database")), qPrintable(error));
            QVERIFY2(error.contains(QStringLiteral("left untouched")), qPrintable(error));
            expectUntouched();
        }
    }

    void everyCommandRefusesIt_data()
    {
        // DB and SRC stand for the damaged file and an honest candidate.
        const QString source =
            QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cpu/vector_add_naive.cpp");
        auto command = [&](const char *words) {
            QStringList arguments = QString::fromLatin1(words).split(QLatin1Char(' '));
            arguments.replaceInStrings(QRegularExpression(QStringLiteral("^DB$")), m_damaged);
            arguments.replaceInStrings(QRegularExpression(QStringLiteral("^SRC$")), source);
            return arguments;
        };
        QTest::addColumn<QStringList>("arguments");
        for (const char *words :
             {"report --db DB", "report --db DB --json", "export --db DB --run 2",
              "export --db DB --run 2 --format csv", "resume --db DB --run 2",
              "rejudge --db DB --run 2", "submit --db DB --run 2 SRC", "memory list --db DB",
              "memory clear --db DB --yes",
              "eval --task vector_add --backend cpu --no-timing --db DB SRC",
              "run --task vector_add --backend cpu --budget 2 --db DB",
              "compare --task vector_add --backend cpu --budget 2 --strategies best-of-n,greedy "
              "--db DB"})
            QTest::newRow(words) << command(words);
    }

    void everyCommandRefusesIt()
    {
        QFETCH(QStringList, arguments);
        const CliOutcome outcome = runCli(arguments, 120000);
        QVERIFY2(outcome.status == 2, outcome.err.constData());
        QVERIFY2(outcome.err.contains("a damaged database"), outcome.err.constData());
        expectUntouched();
    }

    // Last, as it writes -shm beside the file: a reopen that reads only the header (of a file
    // this process checked before) does not pay for the check, so it does not see the damage.
    void aHeaderOnlyReopenDoesNotLook()
    {
        QVERIFY(RunStore::open(m_damaged, RunStore::Mode::ReadOnly, nullptr,
                               RunStore::Check::Header) != nullptr);
    }
};

QTEST_GUILESS_MAIN(TestDamagedDatabase)
#include "tst_damageddatabase.moc"
