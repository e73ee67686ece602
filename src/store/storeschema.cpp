#include "storeschema.h"

namespace kiln::storeschema {

namespace {

// Version 1: the base schema. Timestamps are milliseconds since the epoch (UTC); JSON columns hold
// compact JSON objects. Never edit a released step: add a new one.
const char *const schemaV1 = R"sql(
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    strategy TEXT NOT NULL DEFAULT '',
    policy TEXT NOT NULL DEFAULT '',
    backend TEXT NOT NULL DEFAULT '',
    seed INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL CHECK (status IN ('created', 'running', 'paused', 'finished', 'failed',
                                           'cancelled')),
    config_json TEXT NOT NULL DEFAULT '{}',
    budget_json TEXT NOT NULL DEFAULT '{}',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE TABLE run_tasks (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    task TEXT NOT NULL,
    task_json TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (run_id, task)
);
CREATE TABLE candidates (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq_in_run INTEGER NOT NULL,
    task TEXT NOT NULL,
    parent_id INTEGER REFERENCES candidates(id),
    second_parent_id INTEGER REFERENCES candidates(id),
    operation TEXT NOT NULL CHECK (operation IN ('sample', 'refine', 'mutate', 'crossover',
                                                 'manual')),
    generation INTEGER NOT NULL DEFAULT 0,
    island INTEGER NOT NULL DEFAULT 0,
    source TEXT NOT NULL,
    policy TEXT NOT NULL DEFAULT '',
    policy_meta_json TEXT NOT NULL DEFAULT '{}',
    prompt TEXT NOT NULL DEFAULT '',
    reasoning TEXT NOT NULL DEFAULT '',
    response TEXT NOT NULL DEFAULT '',
    prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_length INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    UNIQUE (run_id, seq_in_run),
    CHECK (second_parent_id IS NULL OR operation = 'crossover'),
    CHECK (operation <> 'crossover' OR (parent_id IS NOT NULL AND second_parent_id IS NOT NULL))
);
CREATE TABLE evaluations (
    id INTEGER PRIMARY KEY,
    candidate_id INTEGER NOT NULL REFERENCES candidates(id) ON DELETE CASCADE,
    backend TEXT NOT NULL,
    verdict TEXT NOT NULL CHECK (verdict IN ('pass', 'wrong', 'flagged', 'compile_error', 'crash',
                                             'timeout', 'resource')),
    correct INTEGER NOT NULL CHECK (correct IN (0, 1)),
    speedup REAL,
    candidate_ms REAL,
    baseline_ms REAL,
    roofline_fraction REAL,
    candidate_timing_json TEXT NOT NULL DEFAULT '{}',
    baseline_timing_json TEXT NOT NULL DEFAULT '{}',
    summary TEXT NOT NULL DEFAULT '',
    result_json TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX evaluations_candidate ON evaluations(candidate_id);
CREATE TABLE stages (
    evaluation_id INTEGER NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    name TEXT NOT NULL,
    ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
    ms REAL NOT NULL DEFAULT 0,
    detail TEXT NOT NULL DEFAULT '',
    data_json TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (evaluation_id, idx)
);
CREATE TABLE flags (
    evaluation_id INTEGER NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    flag_id TEXT NOT NULL,
    message TEXT NOT NULL DEFAULT '',
    lines_json TEXT NOT NULL DEFAULT '[]',
    blocking INTEGER NOT NULL CHECK (blocking IN (0, 1)),
    PRIMARY KEY (evaluation_id, idx)
);
CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    ts INTEGER NOT NULL,
    kind TEXT NOT NULL,
    candidate_id INTEGER REFERENCES candidates(id) ON DELETE CASCADE,
    payload_json TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX events_run ON events(run_id, id);
-- The log is append-only: rows may go with their run, but never change.
CREATE TRIGGER events_append_only BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;
)sql";

// Version 2: the LLM response cache; each evaluation's total stage time, backfilled from its
// stages (device-time reports sum it); indices for walking the tree from a parent and for
// replaying one kind of event.
const char *const schemaV2 = R"sql(
CREATE TABLE llm_cache (
    key TEXT PRIMARY KEY,
    endpoint TEXT NOT NULL,
    model TEXT NOT NULL,
    body_hash TEXT NOT NULL,
    sample_index INTEGER NOT NULL DEFAULT 0,
    response TEXT NOT NULL,
    usage_json TEXT NOT NULL DEFAULT '{}',
    created_at INTEGER NOT NULL
);
ALTER TABLE evaluations ADD COLUMN total_ms REAL NOT NULL DEFAULT 0;
UPDATE evaluations
   SET total_ms = (SELECT COALESCE(SUM(ms), 0) FROM stages WHERE evaluation_id = evaluations.id);
CREATE INDEX candidates_parent ON candidates(parent_id);
CREATE INDEX candidates_second_parent ON candidates(second_parent_id);
CREATE INDEX events_run_kind ON events(run_id, kind, id);
)sql";

// Version 3: where each candidate sits in its run's sequence of requests (sample index) and which
// search round asked for it, so a crashed run resumes the interrupted round slot by slot.
const char *const schemaV3 = R"sql(
ALTER TABLE candidates ADD COLUMN sample_index INTEGER NOT NULL DEFAULT -1;
ALTER TABLE candidates ADD COLUMN round INTEGER NOT NULL DEFAULT -1;
CREATE INDEX candidates_sample ON candidates(run_id, sample_index);
)sql";

// Version 4: covering indices for the tree's query (RunStore::lineage). A candidate's lineage
// columns sit after its source in the row, and an evaluation's duration after its result JSON:
// without these indices SQLite reads every source, prompt and stage blob to reach them.
const char *const schemaV4 = R"sql(
CREATE INDEX candidates_lineage ON candidates(
    run_id, seq_in_run, id, task, parent_id, second_parent_id, operation, generation, island,
    sample_index, round, policy, prompt_tokens, completion_tokens, reasoning_tokens,
    reasoning_length, created_at);
CREATE INDEX evaluations_lineage ON evaluations(
    candidate_id, id, verdict, correct, speedup, candidate_ms, total_ms, summary);
)sql";

// Version 5: the verifier's secret of each run, drawn from the OS when the run is created (it
// used to be a function of the run seed, which every policy request carries).
const char *const schemaV5 = R"sql(
ALTER TABLE runs ADD COLUMN verifier_secret INTEGER;
)sql";

// Version 6: the optimisation memory, shared by the runs of a workspace (docs/strategies.md). A
// lesson outlives the run and candidates it came from, so its ids are plain numbers, not keys.
const char *const schemaV6 = R"sql(
CREATE TABLE memory (
    id INTEGER PRIMARY KEY,
    task TEXT NOT NULL,
    backend TEXT NOT NULL,
    shape TEXT NOT NULL DEFAULT '',
    run_id INTEGER,
    parent_id INTEGER,
    child_id INTEGER UNIQUE,
    idea TEXT NOT NULL,
    diff TEXT NOT NULL DEFAULT '',
    speedup_before REAL NOT NULL,
    speedup_after REAL NOT NULL,
    ms_before REAL,
    ms_after REAL,
    edited INTEGER NOT NULL DEFAULT 0 CHECK (edited IN (0, 1)),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX memory_task ON memory(task, backend);
)sql";

// Version 7: how sure a speedup is and where it came from. Each evaluation's 95 % interval (a
// paired bootstrap of its timed calls), whether it is a confirmation (re-measured with more
// trials before its candidate became a run's best), and, for a duplicate source, the earlier
// candidate whose judgement it reuses. The tree's covering index gains the new columns.
const char *const schemaV7 = R"sql(
ALTER TABLE evaluations ADD COLUMN speedup_low REAL;
ALTER TABLE evaluations ADD COLUMN speedup_high REAL;
ALTER TABLE evaluations ADD COLUMN confirmed INTEGER NOT NULL DEFAULT 0 CHECK (confirmed IN (0, 1));
ALTER TABLE evaluations ADD COLUMN duplicate_of INTEGER;
DROP INDEX evaluations_lineage;
CREATE INDEX evaluations_lineage ON evaluations(
    candidate_id, id, verdict, correct, speedup, candidate_ms, total_ms, summary, speedup_low,
    speedup_high, confirmed, duplicate_of);
)sql";

// Version 8: the verdict verifier_error (the verifier's own reference or baseline failed, not
// the candidate). The verdict's CHECK is part of the table, so the table is rebuilt the way
// SQLite's documentation describes (a new table, the rows copied, the old one dropped, the new
// one renamed; foreign keys off meanwhile), with its indexes.
const char *const schemaV8 = R"sql(
CREATE TABLE evaluations_v8 (
    id INTEGER PRIMARY KEY,
    candidate_id INTEGER NOT NULL REFERENCES candidates(id) ON DELETE CASCADE,
    backend TEXT NOT NULL,
    verdict TEXT NOT NULL CHECK (verdict IN ('pass', 'wrong', 'flagged', 'compile_error', 'crash',
                                             'timeout', 'resource', 'verifier_error')),
    correct INTEGER NOT NULL CHECK (correct IN (0, 1)),
    speedup REAL,
    candidate_ms REAL,
    baseline_ms REAL,
    roofline_fraction REAL,
    candidate_timing_json TEXT NOT NULL DEFAULT '{}',
    baseline_timing_json TEXT NOT NULL DEFAULT '{}',
    summary TEXT NOT NULL DEFAULT '',
    result_json TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    total_ms REAL NOT NULL DEFAULT 0,
    speedup_low REAL,
    speedup_high REAL,
    confirmed INTEGER NOT NULL DEFAULT 0 CHECK (confirmed IN (0, 1)),
    duplicate_of INTEGER
);
INSERT INTO evaluations_v8 (id, candidate_id, backend, verdict, correct, speedup, candidate_ms,
                            baseline_ms, roofline_fraction, candidate_timing_json,
                            baseline_timing_json, summary, result_json, created_at, total_ms,
                            speedup_low, speedup_high, confirmed, duplicate_of)
SELECT id, candidate_id, backend, verdict, correct, speedup, candidate_ms, baseline_ms,
       roofline_fraction, candidate_timing_json, baseline_timing_json, summary, result_json,
       created_at, total_ms, speedup_low, speedup_high, confirmed, duplicate_of
  FROM evaluations;
DROP TABLE evaluations;
ALTER TABLE evaluations_v8 RENAME TO evaluations;
CREATE INDEX evaluations_candidate ON evaluations(candidate_id);
CREATE INDEX evaluations_lineage ON evaluations(
    candidate_id, id, verdict, correct, speedup, candidate_ms, total_ms, summary, speedup_low,
    speedup_high, confirmed, duplicate_of);
)sql";

// Version 9: hardware profiles (kiln-cli profile, docs/cuda-backend.md "Hardware profiles"). A
// candidate may be profiled several times (another GPU, another ncu); each row keeps what ran
// (the fingerprint), the key metrics, the report file's path in the workspace, or why there is
// no profile. The reference's profile, taken beside a candidate's, is stored with it.
const char *const schemaV9 = R"sql(
CREATE TABLE profiles (
    id INTEGER PRIMARY KEY,
    candidate_id INTEGER NOT NULL REFERENCES candidates(id) ON DELETE CASCADE,
    subject TEXT NOT NULL CHECK (subject IN ('candidate', 'reference')),
    ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
    reason TEXT NOT NULL DEFAULT '',
    report_path TEXT NOT NULL DEFAULT '',
    metrics TEXT NOT NULL DEFAULT '{}',
    fingerprint TEXT NOT NULL DEFAULT '{}',
    created_at INTEGER NOT NULL
);
CREATE INDEX profiles_candidate ON profiles(candidate_id, id);
)sql";

} // namespace

const QList<SchemaMigration> &migrations()
{
    static const QList<SchemaMigration> steps{{1, schemaV1}, {2, schemaV2},       {3, schemaV3},
                                              {4, schemaV4}, {5, schemaV5},       {6, schemaV6},
                                              {7, schemaV7}, {8, schemaV8, true}, {9, schemaV9}};
    return steps;
}

int currentVersion()
{
    return migrations().constLast().version;
}

} // namespace kiln::storeschema
