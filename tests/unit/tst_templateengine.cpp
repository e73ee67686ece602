#include "policies/offline/templateengine.h"

#include <QTest>

using namespace kiln;

class TstTemplateEngine : public QObject
{
    Q_OBJECT

private slots:
    void render_data();
    void render();
    void errors_data();
    void errors();
    void referencedVariables();
};

void TstTemplateEngine::render_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("variables"); // "A=1;B=x"
    QTest::addColumn<QString>("expected");

    QTest::newRow("plain text") << "int x;"
                                << ""
                                << "int x;";
    QTest::newRow("substitution") << "int a[{{N}}];"
                                  << "N=8"
                                  << "int a[8];";
    QTest::newRow("substitution with spaces") << "{{ N }}+{{N}}"
                                              << "N=3"
                                              << "3+3";
    QTest::newRow("inline if true") << "a{{#if V == 4}}4{{/if}}b"
                                    << "V=4"
                                    << "a4b";
    QTest::newRow("inline if false") << "a{{#if V == 4}}4{{/if}}b"
                                     << "V=1"
                                     << "ab";
    QTest::newRow("else") << "{{#if V == 4}}four{{else}}other{{/if}}"
                          << "V=2"
                          << "other";
    QTest::newRow("elif chain")
        << "{{#if V == 1}}one{{#elif V == 2}}two{{#elif V == 3}}three{{else}}many{{/if}}"
        << "V=3"
        << "three";
    QTest::newRow("not equal") << "{{#if P != none}}par{{/if}}"
                               << "P=omp"
                               << "par";
    QTest::newRow("numeric less") << "{{#if B < 256}}small{{else}}big{{/if}}"
                                  << "B=128"
                                  << "small";
    QTest::newRow("numeric not lexical") << "{{#if B >= 64}}yes{{/if}}"
                                         << "B=512"
                                         << "yes";
    QTest::newRow("and") << "{{#if A == 1 && B == 2}}both{{/if}}"
                         << "A=1;B=2"
                         << "both";
    QTest::newRow("and false") << "{{#if A == 1 && B == 3}}both{{/if}}"
                               << "A=1;B=2"
                               << "";
    QTest::newRow("or") << "{{#if A == 9 || B == 2}}either{{/if}}"
                        << "A=1;B=2"
                        << "either";
    QTest::newRow("not and parens") << "{{#if !(A == 1 || B == 1)}}neither{{/if}}"
                                    << "A=2;B=3"
                                    << "neither";
    QTest::newRow("truthy") << "{{#if SIMD}}simd{{/if}}{{#if OFF}}x{{/if}}"
                            << "SIMD=on;OFF=off"
                            << "simd";
    QTest::newRow("quoted literal") << "{{#if S == \"a b\"}}ok{{/if}}"
                                    << "S=a b"
                                    << "ok";
    QTest::newRow("nested") << "{{#if A == 1}}[{{#if B == 2}}x{{else}}y{{/if}}]{{/if}}"
                            << "A=1;B=3"
                            << "[y]";
    QTest::newRow("comment dropped") << "a{{! note }}b"
                                     << ""
                                     << "ab";
    QTest::newRow("standalone tags take their lines")
        << "x\n{{#if A == 1}}\n  one\n{{else}}\n  two\n{{/if}}\ny\n"
        << "A=1"
        << "x\n  one\ny\n";
    QTest::newRow("indented standalone tags") << "{\n    {{#if A == 1}}\n    a();\n    {{/if}}\n}\n"
                                              << "A=2"
                                              << "{\n}\n";
    QTest::newRow("standalone comment line") << "{{! header }}\nint x;\n"
                                             << ""
                                             << "int x;\n";
    QTest::newRow("variable line is kept") << "{{N}}\n"
                                           << "N=5"
                                           << "5\n";
    QTest::newRow("pragma inside branch") << "{{#if S == on}}\n#pragma omp simd\n{{/if}}\nfor(;;);"
                                          << "S=on"
                                          << "#pragma omp simd\nfor(;;);";
}

static QMap<QString, QString> parseVariables(const QString &text)
{
    QMap<QString, QString> variables;
    for (const QString &pair : text.split(QLatin1Char(';'), Qt::SkipEmptyParts)) {
        const qsizetype eq = pair.indexOf(QLatin1Char('='));
        variables.insert(pair.left(eq), pair.mid(eq + 1));
    }
    return variables;
}

void TstTemplateEngine::render()
{
    QFETCH(QString, source);
    QFETCH(QString, variables);
    QFETCH(QString, expected);
    const TemplateEngine::Result result = TemplateEngine::render(source, parseVariables(variables));
    QVERIFY2(result.ok, qPrintable(result.error));
    QCOMPARE(result.text, expected);
}

void TstTemplateEngine::errors_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("variables");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("fragment");

    QTest::newRow("undefined variable") << "a\n{{MISSING}}"
                                        << "" << 2 << "undefined variable";
    QTest::newRow("undefined in condition") << "{{#if X == 1}}a{{/if}}"
                                            << "" << 1 << "undefined variable";
    QTest::newRow("unclosed if") << "{{#if A == 1}}\nx\n"
                                 << "A=1" << 1 << "never closed";
    QTest::newRow("stray close") << "x\n{{/if}}"
                                 << "" << 2 << "without";
    QTest::newRow("else after else") << "{{#if A}}a{{else}}b{{else}}c{{/if}}"
                                     << "A=1" << 1 << "after";
    QTest::newRow("unterminated tag") << "a {{N"
                                      << "N=1" << 1 << "unterminated";
    QTest::newRow("numeric compare of words") << "{{#if A < 3}}x{{/if}}"
                                              << "A=big" << 1 << "compares numbers";
    QTest::newRow("unknown block") << "{{#each A}}x{{/each}}"
                                   << "A=1" << 1 << "unknown block tag";
    QTest::newRow("dangling operator") << "{{#if A ==}}x{{/if}}"
                                       << "A=1" << 1 << "missing value";
}

void TstTemplateEngine::errors()
{
    QFETCH(QString, source);
    QFETCH(QString, variables);
    QFETCH(int, line);
    QFETCH(QString, fragment);
    const TemplateEngine::Result result = TemplateEngine::render(source, parseVariables(variables));
    QVERIFY(!result.ok);
    QVERIFY(result.text.isEmpty());
    QVERIFY2(result.error.contains(fragment), qPrintable(result.error));
    QCOMPARE(result.errorLine, line);
}

void TstTemplateEngine::referencedVariables()
{
    const QString source = QStringLiteral(
        "{{A}} {{#if B == 1 && C != 2}}{{D}}{{#elif E}}x{{else}}{{A}}{{/if}}{{! F }}");
    QCOMPARE(TemplateEngine::referencedVariables(source),
             (QStringList{QStringLiteral("A"), QStringLiteral("B"), QStringLiteral("C"),
                          QStringLiteral("D"), QStringLiteral("E")}));
}

QTEST_GUILESS_MAIN(TstTemplateEngine)
#include "tst_templateengine.moc"
