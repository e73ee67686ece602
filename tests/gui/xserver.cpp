#include "xserver.h"

#include <QFile>
#include <QStandardPaths>
#include <QThread>

#include <X11/Xlib.h>
#include <X11/extensions/XTest.h>

namespace kiln::test {

namespace {

Display *xDisplay(void *x)
{
    return static_cast<Display *>(x);
}

} // namespace

XServer::~XServer()
{
    if (m_x)
        XCloseDisplay(xDisplay(m_x));
    if (m_server.state() != QProcess::NotRunning) {
        m_server.terminate();
        m_server.waitForFinished(5000);
    }
}

bool XServer::start(QString *why)
{
    const QString xvfb = QStandardPaths::findExecutable(QStringLiteral("Xvfb"));
    if (xvfb.isEmpty()) {
        *why = QStringLiteral("no Xvfb (scripts/install-deps.sh installs it)");
        return false;
    }
    for (int n = 91; n < 120; ++n) {
        const QString socket = QStringLiteral("/tmp/.X11-unix/X%1").arg(n);
        if (QFile::exists(socket) || QFile::exists(QStringLiteral("/tmp/.X%1-lock").arg(n)))
            continue;
        m_display = QStringLiteral(":%1").arg(n);
        m_server.start(xvfb, {m_display, QStringLiteral("-screen"), QStringLiteral("0"),
                              QStringLiteral("1600x1000x24"), QStringLiteral("-nolisten"),
                              QStringLiteral("tcp")});
        for (int i = 0; i < 100 && m_server.state() != QProcess::NotRunning; ++i) {
            if (QFile::exists(socket) && (m_x = XOpenDisplay(m_display.toLatin1().constData())))
                return true;
            QThread::msleep(50);
        }
        m_server.kill();
        m_server.waitForFinished();
    }
    *why = QStringLiteral("Xvfb did not start on a free display");
    return false;
}

void XServer::moveTo(QPoint global)
{
    XTestFakeMotionEvent(xDisplay(m_x), -1, global.x(), global.y(), CurrentTime);
    XFlush(xDisplay(m_x));
}

void XServer::click(QPoint global, unsigned button, int times)
{
    moveTo(global);
    for (int i = 0; i < times; ++i) {
        XTestFakeButtonEvent(xDisplay(m_x), button, True, CurrentTime);
        XTestFakeButtonEvent(xDisplay(m_x), button, False, CurrentTime);
    }
    XFlush(xDisplay(m_x));
}

void XServer::key(unsigned long keysym, std::initializer_list<unsigned long> modifiers)
{
    Display *x = xDisplay(m_x);
    for (unsigned long m : modifiers)
        XTestFakeKeyEvent(x, XKeysymToKeycode(x, m), True, CurrentTime);
    const KeyCode code = XKeysymToKeycode(x, keysym);
    XTestFakeKeyEvent(x, code, True, CurrentTime);
    XTestFakeKeyEvent(x, code, False, CurrentTime);
    for (unsigned long m : modifiers)
        XTestFakeKeyEvent(x, XKeysymToKeycode(x, m), False, CurrentTime);
    XFlush(x);
}

void XServer::type(const QString &text)
{
    for (QChar c : text) {
        if (c == QLatin1Char('#'))
            key(0x23, {ShiftL}); // numbersign: shifted 3 on the US layout
        else
            key(XStringToKeysym(QString(c).toLatin1().constData()));
    }
}

} // namespace kiln::test
