#pragma once

#include <QStringList>

namespace kiln {

// `kiln-cli eval --task NAME [--backend auto|cpu|cuda|pytorch] [--db FILE] [--seed S] [--json] FILE`
// (cli.md). Takes the words after "eval"; returns the exit status.
int runEvalCommand(const QStringList &arguments);

} // namespace kiln
