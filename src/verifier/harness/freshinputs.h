#pragma once

#include "tasks/task.h"

#include <QByteArray>
#include <QList>
#include <memory>

namespace kiln {

// The fresh inputs of timed calls (sandbox/freshvalues.h): for every input parameter and every
// distribution of the task, a table of 2^16 values drawn from the run's secret; call c of the
// timing loop draws each input's elements from the table of distribution c mod |distributions|
// with a key of its own. No two calls see the same inputs, so a result cached on its inputs
// never answers a timed call. The CPU backend writes these draws into the sandboxes; the CUDA
// sandbox draws the same values on the device from the same tables.
class FreshInputs
{
public:
    FreshInputs(const Task &task, quint64 secret);

    // Tables are made once per (task, secret) and shared by the run's evaluations.
    static std::shared_ptr<const FreshInputs> forRun(const Task &task, quint64 secret);

    quint64 secret() const { return m_secret; }
    int distributionCount() const { return int(m_distributions.size()); }
    QString distribution(int call) const;
    // The table of `parameter` for call `call`: 2^kTableBits 32-bit words.
    const QByteArray &table(int parameter, int call) const;
    quint64 key(int parameter, int call) const;
    // The elements of `parameter` in call `call` (from element `first` on).
    void draw(int parameter, int call, char *out, qint64 elements, qint64 first = 0) const;
    QByteArray draw(int parameter, int call, qint64 elements) const;

private:
    quint64 m_secret;
    QStringList m_distributions;
    QList<QList<QByteArray>> m_tables; // [parameter][distribution]; empty for non-inputs
};

} // namespace kiln
