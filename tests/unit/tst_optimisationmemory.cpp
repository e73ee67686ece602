// The optimisation memory: which lessons a prompt carries, what the store keeps across runs,
// when an improvement becomes a lesson, and that the offline policy reads lessons only as the
// prompt's text.
#include "engine/memory/memorylesson.h"
#include "engine/memory/memoryranker.h"
#include "engine/memory/unifieddiff.h"
#include "policies/offline/offlinepolicy.h"
#include "policies/offline/promptnotes.h"
#include "policies/promptbuilder.h"
#include "store/runstore.h"
#include "tasks/tasklibrary.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace kiln;
using namespace Qt::StringLiterals;

namespace {

MemoryEntry lesson(const QString &task, const QString &backend, double before, double after,
                   qint64 child, const QString &idea = u"PARALLEL: none -> omp"_s)
{
    MemoryEntry e;
    e.task = task;
    e.backend = backend;
    e.shape = u"n=1000"_s;
    e.idea = idea;
    e.speedupBefore = before;
    e.speedupAfter = after;
    e.childId = child;
    e.createdAt = QDateTime::fromMSecsSinceEpoch(1000 * child, Qt::UTC);
    return e;
}

QStringList tasksOf(const QList<MemoryEntry> &entries)
{
    QStringList names;
    for (const MemoryEntry &e : entries)
        names << e.task + QLatin1Char('@') + QString::number(e.gain(), 'f', 1);
    return names;
}

} // namespace

class TestOptimisationMemory : public QObject
{
    Q_OBJECT

private slots:
    void rankingPrefersTheTaskThenSharedWordsThenGain()
    {
        const QList<MemoryEntry> entries{lesson(u"matmul"_s, u"cpu"_s, 1.0, 3.0, 1),
                                         lesson(u"softmax"_s, u"cpu"_s, 1.0, 1.2, 2),
                                         lesson(u"online_softmax"_s, u"cpu"_s, 1.0, 2.0, 3),
                                         lesson(u"softmax"_s, u"cpu"_s, 1.0, 1.6, 4),
                                         lesson(u"softmax"_s, u"cuda"_s, 1.0, 9.0, 5)};
        const QList<MemoryEntry> ranked =
            MemoryRanker::rank(entries, u"softmax"_s, u"cpu"_s, u"n=1000"_s, 4);
        // Same task first (larger gain first), then a task sharing a word, then the rest; the
        // CUDA lesson never reaches a CPU prompt.
        QCOMPARE(tasksOf(ranked), (QStringList{u"softmax@1.6"_s, u"softmax@1.2"_s,
                                               u"online_softmax@2.0"_s, u"matmul@3.0"_s}));
        QCOMPARE(MemoryRanker::rank(entries, u"softmax"_s, u"cpu"_s, {}, 2).size(), 2);
        QVERIFY(MemoryRanker::relevance(entries[1], u"softmax"_s, u"n=1000"_s) >
                MemoryRanker::relevance(entries[1], u"softmax"_s, u"n=7"_s));
    }

    void storeKeepsLessonsAcrossConnections()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"w.db"_s);
        {
            auto store = RunStore::open(path, RunStore::Mode::ReadWrite);
            QVERIFY(store);
            MemoryEntry a = lesson(u"softmax"_s, u"cpu"_s, 1.0, 1.5, 11);
            MemoryEntry b = lesson(u"matmul"_s, u"cpu"_s, 2.0, 3.0, 12);
            QVERIFY(store->addMemoryEntry(a) > 0);
            QVERIFY(store->addMemoryEntry(b) > 0);
            MemoryEntry again = lesson(u"softmax"_s, u"cpu"_s, 1.0, 1.9, 11);
            QCOMPARE(store->addMemoryEntry(again), 0); // one lesson per child
            QVERIFY(store->lastError().isEmpty());
            QVERIFY(store->updateMemoryIdea(a.id, u"use OpenMP over the rows"_s));
            QVERIFY(!store->updateMemoryIdea(999, u"x"_s));
        }
        auto reader = RunStore::open(path, RunStore::Mode::ReadOnly);
        QVERIFY(reader);
        const QList<MemoryEntry> all = reader->memoryEntries();
        QCOMPARE(all.size(), 2);
        QCOMPARE(all.first().task, u"matmul"_s); // newest first
        const QList<MemoryEntry> softmax = reader->memoryEntries(u"softmax"_s);
        QCOMPARE(softmax.size(), 1);
        QCOMPARE(softmax.first().idea, u"use OpenMP over the rows"_s);
        QVERIFY(softmax.first().edited);
        QCOMPARE(softmax.first().speedupAfter, 1.5);
        reader.reset();
        auto writer = RunStore::open(path, RunStore::Mode::ReadWrite);
        QCOMPARE(writer->clearMemory(u"matmul"_s), 1);
        QVERIFY(writer->deleteMemoryEntry(softmax.first().id));
        QVERIFY(!writer->deleteMemoryEntry(softmax.first().id));
        QCOMPARE(writer->memoryEntries().size(), 0);
    }

    void onlyARealGainBecomesALesson()
    {
        const TaskLibrary library = TaskLibrary::standard();
        const Task *task = library.task(u"vector_add"_s);
        QVERIFY(task);
        CandidateRecord parent;
        parent.id = 1;
        parent.source = u"int a;\nint b;\nint c;\n"_s;
        parent.policyMeta.insert(u"knobs"_s,
                                 QJsonObject{{u"PARALLEL"_s, u"none"_s}, {u"SIMD"_s, u"off"_s}});
        CandidateRecord child = parent;
        child.id = 2;
        child.source = u"int a;\nint B;\nint c;\n"_s;
        child.policyMeta.insert(u"knobs"_s,
                                QJsonObject{{u"PARALLEL"_s, u"omp"_s}, {u"SIMD"_s, u"off"_s}});
        EvaluationResult before;
        before.verdict = Verdict::Pass;
        before.speedup = 2.0;
        EvaluationResult after = before;
        after.speedup = 2.04; // inside timing noise
        QVERIFY(
            !MemoryLesson::fromImprovement(*task, Backend::Cpu, 7, parent, before, child, after));
        after.speedup = 3.0;
        EvaluationResult wrong = after;
        wrong.verdict = Verdict::Wrong;
        QVERIFY(
            !MemoryLesson::fromImprovement(*task, Backend::Cpu, 7, parent, before, child, wrong));
        const auto entry =
            MemoryLesson::fromImprovement(*task, Backend::Cpu, 7, parent, before, child, after);
        QVERIFY(entry);
        QCOMPARE(entry->idea, u"PARALLEL: none -> omp"_s);
        QCOMPARE(entry->gain(), 1.5);
        QCOMPARE(entry->shape, MemoryLesson::timingShape(*task, Backend::Cpu));
        QVERIFY(!entry->shape.isEmpty());
        QCOMPARE(entry->diff, u"@@ -1,3 +1,3 @@\n int a;\n-int b;\n+int B;\n int c;"_s);
        // Without knobs the idea is the answer's first line of prose.
        parent.policyMeta = {};
        child.response = u"```cpp\nx\n```\nTiled the loop by 64 to stay in L1.\n"_s;
        QCOMPARE(MemoryLesson::idea(parent, child), u"Tiled the loop by 64 to stay in L1."_s);
    }

    void diffIsCappedAndCompact()
    {
        QString before;
        QString after;
        for (int i = 0; i < 100; ++i) {
            before += u"line %1\n"_s.arg(i);
            after += u"line %1%2\n"_s.arg(i).arg(i % 2 ? u"!"_s : QString());
        }
        const QString diff = UnifiedDiff::between(before, after, 1, 10);
        QCOMPARE(diff.split(QLatin1Char('\n')).size(), 12); // a hunk header, 10 lines, a summary
        QVERIFY(diff.endsWith(u"more changed lines"_s));
        QVERIFY(UnifiedDiff::between(before, before).isEmpty());
    }

    void offlinePolicyReadsLessonsOnlyFromThePrompt()
    {
        const TaskLibrary library = TaskLibrary::standard();
        const Task *task = library.task(u"vector_add"_s);
        QVERIFY(task);
        // What the builder writes, the simulated model reads back: the knob moves of the lessons.
        const QString section = PromptBuilder::memorySection({lesson(
            u"vector_add"_s, u"cpu"_s, 1.0, 2.0, 1, u"CHUNK: 64 -> 16384; SIMD: off -> on"_s)});
        QVERIFY(section.startsWith(u"## What worked before"_s));
        const QList<PromptNotes::KnobMove> moves = PromptNotes::memoryMoves(section);
        QCOMPARE(moves.size(), 2);
        QCOMPARE(moves[0].knob, u"CHUNK"_s);
        QCOMPARE(moves[0].value, u"16384"_s);
        QCOMPARE(moves[1].value, u"on"_s);

        OfflinePolicyOptions options;
        options.followRate = 1.0; // follows every suggestion its prompt makes
        OfflinePolicy policy(options);
        GenerationRequest request;
        request.task = task;
        request.backend = Backend::Cpu;
        request.seed = 5;
        std::atomic<bool> cancel{false};
        int moved = 0;
        for (qint64 index = 0; index < 8; ++index) {
            request.sampleIndex = index;
            request.memory.clear();
            const GenerationResult plain = policy.generate(request, cancel);
            request.memory = {
                lesson(u"vector_add"_s, u"cpu"_s, 1.0, 2.0, 1, u"CHUNK: 64 -> 16384"_s)};
            const GenerationResult noted = policy.generate(request, cancel);
            QVERIFY(plain.ok && noted.ok);
            QVERIFY(!plain.candidate.prompt.contains(u"What worked before"_s));
            QVERIFY(noted.candidate.prompt.contains(u"CHUNK: 64 -> 16384"_s));
            const QJsonObject knobs = noted.candidate.policyMeta.value(u"knobs"_s).toObject();
            QCOMPARE(knobs.value(u"CHUNK"_s).toString(), u"16384"_s);
            const QJsonObject plainKnobs = plain.candidate.policyMeta.value(u"knobs"_s).toObject();
            moved += plainKnobs.value(u"CHUNK"_s).toString() != u"16384"_s ? 1 : 0;
            // The other knobs come from the same draws as without the lesson.
            for (const QString &knob : {u"PARALLEL"_s, u"SIMD"_s, u"UNROLL"_s})
                QCOMPARE(knobs.value(knob), plainKnobs.value(knob));
        }
        QVERIFY2(moved > 0, "some samples must pick another CHUNK without the lesson");
    }
};

QTEST_GUILESS_MAIN(TestOptimisationMemory)
#include "tst_optimisationmemory.moc"
