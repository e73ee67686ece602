#include "sandbox/freshvalues.h"
#include "tasks/taskloader.h"
#include "verifier/harness/freshinputs.h"

#include <QSet>
#include <QTest>
#include <cstring>

// Random123 (Debian's librandom123-dev, which scripts/install-deps.sh installs) is the reference
// the hand-written generator is checked against.
#if __has_include(<Random123/philox.h>)
#include <Random123/philox.h>
#define KILN_HAVE_RANDOM123 1
#endif

using namespace kiln;

namespace {

Task loadTask(const char *name)
{
    const TaskLoader::Result loaded =
        TaskLoader::load(QStringLiteral(KILN_SOURCE_DIR "/tasks/") + QLatin1String(name));
    if (!loaded.ok())
        qFatal("cannot load task %s", name);
    return *loaded.task;
}

int parameterIndex(const Task &task, const QString &name)
{
    for (int p = 0; p < task.parameters.size(); ++p)
        if (task.parameters[p].name == name)
            return p;
    return -1;
}

std::vector<float> floats(const QByteArray &bytes)
{
    std::vector<float> values(size_t(bytes.size() / 4));
    std::memcpy(values.data(), bytes.constData(), values.size() * 4);
    return values;
}

} // namespace

class TestFreshInputs : public QObject
{
    Q_OBJECT

private slots:
    // The unrolled host fill and the per-element index (what the CUDA kernel and the windows
    // checked against the device compute) give the same draw.
    // The generator is Philox4x32-10: Random123's known-answer vector for counter 0, key 0.
    void generatorIsPhilox()
    {
        unsigned int words[4];
        fresh::kilnPhilox(0, 0, words);
        QCOMPARE(words[0], 0x6627e8d5u);
        QCOMPARE(words[1], 0xe169c58du);
        QCOMPARE(words[2], 0xbc57ac4cu);
        QCOMPARE(words[3], 0x9b00dbd8u);
    }

    // And the same words as Random123's Philox4x32 for keys and counters over their whole range
    // (a counter fills the low half of Philox's, the rest stays 0).
    void generatorMatchesRandom123()
    {
#ifdef KILN_HAVE_RANDOM123
        r123::Philox4x32 philox;
        for (std::uint64_t k = 0; k < 64; ++k) {
            const std::uint64_t key = fresh::callKey(20261130, k, k % 3);
            for (std::uint64_t c = 0; c < 64; ++c) {
                const std::uint64_t counter = fresh::callKey(key, c, 1) >> c;
                unsigned int words[4];
                fresh::kilnPhilox(key, counter, words);
                r123::Philox4x32::ctr_type block = {};
                block.v[0] = std::uint32_t(counter);
                block.v[1] = std::uint32_t(counter >> 32);
                r123::Philox4x32::key_type philoxKey = {};
                philoxKey.v[0] = std::uint32_t(key);
                philoxKey.v[1] = std::uint32_t(key >> 32);
                const r123::Philox4x32::ctr_type expected = philox(block, philoxKey);
                for (int w = 0; w < 4; ++w)
                    QCOMPARE(words[w], expected.v[w]);
            }
        }
#else
        QFAIL("Random123's headers are missing: scripts/install-deps.sh installs librandom123-dev");
#endif
    }

    void fillMatchesTheIndexFunction()
    {
        std::vector<std::uint32_t> table(1u << fresh::kTableBits);
        for (std::uint32_t i = 0; i < table.size(); ++i)
            table[i] = i * 2654435761u;
        for (const std::uint64_t n : {1ull, 3ull, 4ull, 1001ull}) {
            std::vector<std::uint32_t> out(n);
            fresh::fill(out.data(), n, table.data(), fresh::kTableBits, 42);
            for (std::uint64_t i = 0; i < n; ++i)
                QCOMPARE(out[i], table[fresh::kilnFreshIndex(42, i, fresh::kTableBits)]);
        }
    }

    // A window drawn from element `first` on equals that part of the whole draw.
    void windowsAgreeWithTheWholeDraw()
    {
        const Task task = loadTask("vector_add");
        const FreshInputs inputs(task, 7);
        const QByteArray whole = inputs.draw(0, 3, 5000);
        QByteArray window(4 * 777, Qt::Uninitialized);
        inputs.draw(0, 3, window.data(), 777, 1234);
        QCOMPARE(window, whole.mid(4 * 1234, 4 * 777));
    }

    // Every call sees values of its own; the same (task, secret, call) always the same ones.
    void callsNeverRepeat()
    {
        const Task task = loadTask("vector_add");
        const FreshInputs inputs(task, 11);
        QSet<QByteArray> seen;
        for (int call = 0; call < 64; ++call)
            seen.insert(inputs.draw(0, call, 256));
        QCOMPARE(seen.size(), 64);
        QCOMPARE(FreshInputs(task, 11).draw(0, 5, 256), inputs.draw(0, 5, 256));
        QVERIFY(FreshInputs(task, 12).draw(0, 5, 256) != inputs.draw(0, 5, 256));
        QVERIFY(inputs.draw(1, 5, 256) != inputs.draw(0, 5, 256)); // a and b differ too
    }

    // Calls rotate through the task's distributions; an input with a distribution of its own
    // (layernorm's gamma, uniform in [0.5, 1.5]) keeps it on every call, offset ones included.
    void distributionsAreTheTasks()
    {
        const Task task = loadTask("layernorm");
        const FreshInputs inputs(task, 3);
        QCOMPARE(inputs.distributionCount(), int(task.distributions.size()));
        const int x = parameterIndex(task, QStringLiteral("x"));
        const int gamma = parameterIndex(task, QStringLiteral("gamma"));
        QVERIFY(x >= 0 && gamma >= 0);
        for (int call = 0; call < inputs.distributionCount(); ++call) {
            for (float g : floats(inputs.draw(gamma, call, 4096)))
                QVERIFY2(g >= 0.5f && g <= 1.5f, qPrintable(inputs.distribution(call)));
            const std::vector<float> values = floats(inputs.draw(x, call, 4096));
            double mean = 0.0;
            for (float v : values)
                mean += v / values.size();
            if (inputs.distribution(call) == QLatin1String("offset"))
                QVERIFY2(mean > 45.0 && mean < 55.0, qPrintable(QString::number(mean)));
            else
                QVERIFY2(std::abs(mean) < 5.0, qPrintable(QString::number(mean)));
        }
    }
};

QTEST_GUILESS_MAIN(TestFreshInputs)
#include "tst_freshinputs.moc"
