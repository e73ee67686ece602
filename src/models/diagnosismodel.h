#pragma once

#include "engine/diagnosis/diagnosisfinding.h"

#include <QAbstractListModel>
#include <QTimer>

template <typename T> class QFutureWatcher;

namespace kiln {

class RunDocument;

// The shown run's diagnosis (RunDiagnosis, as `kiln-cli diagnose` computes it), one row per
// finding. It is read and computed on a worker thread from the document's database: on a load,
// and while a live run grows, at most every kRefreshMs. A newer request supersedes one still
// running.
class DiagnosisModel : public QAbstractListModel
{
    Q_OBJECT

public:
    enum Role
    {
        CandidatesRole = Qt::UserRole + 1 // QList<qint64>, the evidence
    };
    static constexpr int kRefreshMs = 2000;

    explicit DiagnosisModel(RunDocument *document, QObject *parent = nullptr);
    ~DiagnosisModel() override;

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;

    const QList<DiagnosisFinding> &findings() const { return m_findings; }
    qint64 runId() const { return m_runId; } // whose findings these are; 0 before any
    bool isComputing() const { return m_watcher != nullptr; }

public slots:
    void refresh(); // now, for the document's run

signals:
    void diagnosed(); // findings() holds a new diagnosis

private:
    struct Computed
    {
        qint64 runId = 0;
        QList<DiagnosisFinding> findings;
    };
    void apply(const Computed &computed);

    RunDocument *m_document;
    QList<DiagnosisFinding> m_findings;
    qint64 m_runId = 0;
    QFutureWatcher<Computed> *m_watcher = nullptr;
    bool m_again = false; // news arrived while computing
    QTimer m_growth;      // throttles refreshes while a live run grows
};

} // namespace kiln
