#pragma once

#include "core/profilerecord.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QTextBrowser;

namespace kiln {

// The selected candidate's hardware profiles (ProfileFormatter) and the Profile button, which
// asks for a new one (Nsight Compute on the candidate and its reference, in the background).
class ProfilePanel : public QWidget
{
    Q_OBJECT

public:
    explicit ProfilePanel(QWidget *parent = nullptr);

    // unavailable: why this machine takes no profile of the candidate's backend (empty: it may).
    void showCandidate(qint64 candidateId, const QList<ProfileRecord> &profiles,
                       const QString &unavailable);
    void clear(const QString &why);
    // While a profile of `candidateId` is being taken (0: none).
    void setProfiling(qint64 candidateId);
    QTextBrowser *browser() const { return m_browser; }
    QPushButton *profileButton() const { return m_button; }

signals:
    void profileRequested(qint64 candidateId);

private:
    void updateButton();

    QTextBrowser *m_browser;
    QPushButton *m_button;
    QLabel *m_state;
    qint64 m_candidate = 0;
    qint64 m_profiling = 0;
    bool m_available = false;
};

} // namespace kiln
