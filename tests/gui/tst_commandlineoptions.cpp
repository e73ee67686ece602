#include "app/commandlineoptions.h"

#include <QTest>

using namespace kiln;

class TstCommandLineOptions : public QObject
{
    Q_OBJECT

private slots:
    void parses_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<QString>("errorPart");
        QTest::newRow("none") << QStringList() << true << QString();
        QTest::newRow("all") << QStringList{QStringLiteral("--db"),         QStringLiteral("w.db"),
                                            QStringLiteral("--run"),        QStringLiteral("3"),
                                            QStringLiteral("--select"),     QStringLiteral("17"),
                                            QStringLiteral("--view"),       QStringLiteral("diff"),
                                            QStringLiteral("--screenshot"), QStringLiteral("o.png")}
                             << true << QString();
        QTest::newRow("equals") << QStringList{QStringLiteral("--db=w.db"),
                                               QStringLiteral("--view=report")}
                                << true << QString();
        QTest::newRow("unknown") << QStringList{QStringLiteral("--bogus")} << false
                                 << QStringLiteral("unknown argument");
        QTest::newRow("missing value")
            << QStringList{QStringLiteral("--db")} << false << QStringLiteral("needs a value");
        QTest::newRow("bad run") << QStringList{QStringLiteral("--db"), QStringLiteral("w.db"),
                                                QStringLiteral("--run"), QStringLiteral("x")}
                                 << false << QStringLiteral("positive id");
        QTest::newRow("bad view") << QStringList{QStringLiteral("--view"), QStringLiteral("graph")}
                                  << false << QStringLiteral("--view must be one of");
        QTest::newRow("run without db") << QStringList{QStringLiteral("--run"), QStringLiteral("1")}
                                        << false << QStringLiteral("need --db");
    }

    void parses()
    {
        QFETCH(QStringList, args);
        QFETCH(bool, ok);
        QFETCH(QString, errorPart);
        QString error;
        const auto options = CommandLineOptions::parse(args, &error);
        QCOMPARE(options.has_value(), ok);
        if (!ok) {
            QVERIFY2(error.contains(errorPart), qPrintable(error));
            QVERIFY(!error.contains(QLatin1Char('\n')));
        }
    }

    void values()
    {
        const auto o = CommandLineOptions::parse(
            {QStringLiteral("--db"), QStringLiteral("w.db"), QStringLiteral("--run=3"),
             QStringLiteral("--select"), QStringLiteral("17"), QStringLiteral("--view"),
             QStringLiteral("tree"), QStringLiteral("--screenshot"), QStringLiteral("o.png")},
            nullptr);
        QVERIFY(o);
        QCOMPARE(o->database, QStringLiteral("w.db"));
        QCOMPARE(*o->run, 3);
        QCOMPARE(*o->select, 17);
        QCOMPARE(o->view, QStringLiteral("tree"));
        QCOMPARE(o->screenshot, QStringLiteral("o.png"));
        QCOMPARE(CommandLineOptions::views().size(), 9);
    }

    // What a file manager passes: the database as a bare path; a second bare word is an error.
    void barePathIsTheDatabase()
    {
        const auto o = CommandLineOptions::parse(
            {QStringLiteral("/tmp/work.db"), QStringLiteral("--view"), QStringLiteral("plots")},
            nullptr);
        QVERIFY(o);
        QCOMPARE(o->database, QStringLiteral("/tmp/work.db"));
        QString error;
        QVERIFY(
            !CommandLineOptions::parse({QStringLiteral("a.db"), QStringLiteral("b.db")}, &error));
        QVERIFY2(error.contains(QLatin1String("unknown argument 'b.db'")), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TstCommandLineOptions)
#include "tst_commandlineoptions.moc"
