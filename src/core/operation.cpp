#include "operation.h"

namespace kiln {

QString operationName(Operation operation)
{
    switch (operation) {
    case Operation::Sample:
        return QStringLiteral("sample");
    case Operation::Refine:
        return QStringLiteral("refine");
    case Operation::Mutate:
        return QStringLiteral("mutate");
    case Operation::Crossover:
        return QStringLiteral("crossover");
    case Operation::Manual:
        return QStringLiteral("manual");
    }
    return {};
}

std::optional<Operation> operationFromName(const QString &name)
{
    for (Operation op : {Operation::Sample, Operation::Refine, Operation::Mutate,
                         Operation::Crossover, Operation::Manual}) {
        if (operationName(op) == name)
            return op;
    }
    return std::nullopt;
}

} // namespace kiln
