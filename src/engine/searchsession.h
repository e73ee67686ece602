#pragma once

#include "engine/runconfig.h"
#include "engine/searchengine.h"

#include <memory>

namespace kiln {

class Evaluator;
class Policy;
class RunStore;
class TaskLibrary;

// One search ready to run: its policy and its engine, made from a RunConfig (a new run) or from
// the stored run (resume). kiln-cli and the window's run controllers both start runs this way;
// the store, the task library and the evaluator belong to the caller and may be shared by
// several sessions at once.
class SearchSession
{
public:
    // nullptr with *error when the configuration or the stored run is unusable.
    static std::unique_ptr<SearchSession> create(RunStore &store, const TaskLibrary &tasks,
                                                 Evaluator &evaluator, const RunConfig &config,
                                                 QString *error);
    static std::unique_ptr<SearchSession> resume(RunStore &store, const TaskLibrary &tasks,
                                                 Evaluator &evaluator, qint64 runId,
                                                 QString *error);
    ~SearchSession();

    SearchEngine &engine() { return *m_engine; }
    qint64 runId() const { return m_engine->runId(); }
    const RunConfig &config() const { return m_engine->config(); }

private:
    SearchSession() = default;
    static std::unique_ptr<SearchSession> make(RunStore &store, const TaskLibrary &tasks,
                                               Evaluator &evaluator, const RunConfig &config,
                                               QString *error);

    std::unique_ptr<Policy> m_policy; // outlives the engine that calls it
    std::unique_ptr<SearchEngine> m_engine;
};

} // namespace kiln
