#pragma once

#include <QStringList>

namespace kiln {

// kiln_bench_gui load FILE [--full-records]: opens the last run of FILE as the window does
// (lineage columns only) until the tree is painted, or reads it the way the window did before
// (every candidate's full record and evaluation); prints the time and the peak memory.
int runLoadBenchmark(const QStringList &arguments);
// kiln_bench_gui live [--rate R] [--seconds S]: results arrive at R per second, from a run this
// window makes and from one another writer makes; prints the GUI thread's longest stall and the
// time of a pan frame while they arrive.
int runLiveBenchmark(const QStringList &arguments);

// kiln_bench_gui plots FILE [--repeat N]: the Plots panel's redraw of the last run of FILE for
// every plot and axis, and growth-replay steps on it.
int runPlotBenchmark(const QStringList &arguments);

double statusKiB(const char *key); // from /proc/self/status

} // namespace kiln
