#pragma once

// An Xvfb server the test starts and stops itself, and real input sent to it through the XTest
// extension: events go through the X server and Qt's xcb platform like a person's, not through
// QTest's synthetic events. Xlib stays in xserver.cpp: its macros clash with Qt's headers.
#include <QPoint>
#include <QProcess>
#include <QString>

#include <initializer_list>

namespace kiln::test {

class XServer
{
public:
    // X keysyms of the keys the tests press.
    enum Key : unsigned long
    {
        Return = 0xff0d,
        Escape = 0xff1b,
        F1 = 0xffbe,
        ShiftL = 0xffe1,
        ControlL = 0xffe3,
        KeyA = 0x61,
        KeyN = 0x6e,
        KeyO = 0x6f,
        Key0 = 0x30
    };

    ~XServer();
    // Starts Xvfb on the first free display from :91; false (with *why) when it cannot.
    bool start(QString *why);
    QString display() const { return m_display; }

    void moveTo(QPoint global);
    // Button 1 is the left one; 4 and 5 turn the wheel.
    void click(QPoint global, unsigned button = 1, int times = 1);
    void key(unsigned long keysym, std::initializer_list<unsigned long> modifiers = {});
    void type(const QString &text); // digits, letters and '#'

private:
    QProcess m_server;
    QString m_display;
    void *m_x = nullptr; // Display *
};

} // namespace kiln::test
