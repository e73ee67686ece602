#pragma once

#include "models/rules/workshopexercises.h"

#include <QDialog>

class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QTextBrowser;

namespace kiln {

// Run ▸ Workshop exercises: the seven exercises of docs/workshop.md, each started from here with
// the runs its commands make, and its "look at" and "expect" kept in view (the dialog does not
// block the window) while the runs grow.
class WorkshopDialog : public QDialog
{
    Q_OBJECT

public:
    WorkshopDialog(const QString &folder, QWidget *parent = nullptr);

    QListWidget *exerciseList() const { return m_list; }
    QTextBrowser *text() const { return m_text; }
    QString folder() const;
    double budgetScale() const;
    // The exercise chosen, at the folder and scale chosen.
    WorkshopExercise current() const;
    // What the window says while the exercise runs, and when it is done.
    void setStatus(const QString &text);

signals:
    void startRequested(const kiln::WorkshopExercise &exercise);

private:
    void showExercise();

    QListWidget *m_list;
    QTextBrowser *m_text;
    QLineEdit *m_folder;
    QDoubleSpinBox *m_scale;
    QPushButton *m_start;
    QLabel *m_status;
};

} // namespace kiln
