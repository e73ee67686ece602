#pragma once

#include <QString>
#include <optional>

namespace kiln {

// How a candidate was produced; the tree view draws each with its own shape.
enum class Operation
{
    Sample,
    Refine,
    Mutate,
    Crossover,
    Manual
};

QString operationName(Operation operation);
std::optional<Operation> operationFromName(const QString &name);

} // namespace kiln
