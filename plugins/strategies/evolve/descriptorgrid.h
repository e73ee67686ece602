#pragma once

#include "searchnode.h"

#include <QList>
#include <QString>

namespace kiln {

// The MAP-Elites cell of a candidate. The spec is a comma-separated list of axes:
//   key              categorical: every distinct value is its own bin
//   key:bins         categorical folded into `bins` bins by a stable hash
//   key:bins:lo:hi   numeric: `bins` equal bins over [lo, hi], values outside clamped
// Keys name NodeResult.descriptors entries; reasoning_tokens and roofline_fraction fall back
// to the result fields of that name. An empty spec is a single cell (the global elite).
class DescriptorGrid
{
public:
    struct Axis
    {
        QString key;
        int bins = 0; // 0: categorical, unbounded
        bool numeric = false;
        double low = 0.0;
        double high = 1.0;
    };

    // Malformed entries are reported in *error (if given) and skipped.
    void setSpec(const QString &spec, QString *error = nullptr);
    QList<Axis> axes() const { return m_axes; }
    QString cell(const SearchNode &node) const;

private:
    QList<Axis> m_axes;
};

} // namespace kiln
