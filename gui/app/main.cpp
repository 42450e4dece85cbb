// pto-studio: the desktop viewer of PTO Studio trace files.
// Usage: pto-studio [FILE [--baseline B]]  |  pto-studio --screenshot DIR [--screenshot-timeout S]
//        FILE (headless PNG of each view)
//        pto-studio --list-shortcuts | --help | --version
#include "gui/app/MainWindow.h"
#include "gui/app/Screenshots.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>
#include <QTemporaryDir>

#include <cstdio>
#include <cstring>

namespace {

/// The options and the file argument; process() reports what it does not know.
void describeOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(QStringLiteral("Views PTO Studio trace files"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOption({QStringLiteral("screenshot"),
                      QStringLiteral("Open FILE, write a PNG of each view into DIR once every "
                                     "view has loaded, and exit (no display needed; exit 2 on a "
                                     "bad file)."),
                      QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("screenshot-timeout"),
                      QStringLiteral("With --screenshot: how long the views may take to load "
                                     "(default 120); exit 2 when they take longer."),
                      QStringLiteral("SECONDS")});
    parser.addOption({QStringLiteral("list-shortcuts"),
                      QStringLiteral("Print every keyboard shortcut (as Help→Keyboard shortcuts "
                                     "lists them) and exit.")});
    parser.addOption({QStringLiteral("baseline"),
                      QStringLiteral("Compare FILE with the run in B (a what-if, another tile "
                                     "configuration, a measured trace): the Compare runs view."),
                      QStringLiteral("B")});
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("trace file to open"));
}

QStringList argumentsOf(int argc, char** argv) {
    QStringList arguments;
    for (int i = 0; i < argc; ++i) arguments << QString::fromLocal8Bit(argv[i]);
    return arguments;
}

/// Whether Qt has somewhere to draw a window: a platform named (QT_QPA_PLATFORM, -platform) or
/// a display to connect to. Without one, QApplication's X11/Wayland plugin aborts the process.
bool haveDisplay(int argc, char** argv) {
#if defined(Q_OS_UNIX) && !defined(Q_OS_DARWIN)
    if (!qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") ||
        !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        return true;
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "-platform") == 0 || std::strcmp(argv[i], "--platform") == 0)
            return true;
    return false;
#else
    (void)argc;
    (void)argv;
    return true;
#endif
}

void printError(const QString& text) {
    std::fprintf(stderr, "pto-studio: %s\n", text.toLocal8Bit().constData());
}

/// Points QSettings at `dir`: the headless run reads no settings of the user's (its pictures do
/// not depend on them) and writes none (opening the file must not add it to Recent Files).
void useSettingsIn(const QTemporaryDir& dir) {
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir.path());
    QSettings::setPath(QSettings::NativeFormat, QSettings::SystemScope, dir.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::SystemScope, dir.path());
}

/// Exit codes: 0 written, 2 usage error, bad file (one that does not open, a damaged page, a
/// view that cannot read it), views still loading at the time limit, or write failure.
int screenshotMode(const QCommandLineParser& parser) {
    const QStringList files = parser.positionalArguments();
    if (files.size() != 1) {
        printError(QStringLiteral("--screenshot DIR needs exactly one trace FILE"));
        return 2;
    }
    pto::gui::ScreenshotOptions options;
    if (parser.isSet(QStringLiteral("screenshot-timeout"))) {
        bool ok = false;
        options.timeoutSeconds = parser.value(QStringLiteral("screenshot-timeout")).toInt(&ok);
        if (!ok || options.timeoutSeconds <= 0) {
            printError(QStringLiteral("--screenshot-timeout needs a whole number of seconds > 0"));
            return 2;
        }
    }
    const QTemporaryDir settings; // outlives the window and its settings writes
    if (!settings.isValid()) {
        printError(QStringLiteral("cannot create a temporary directory for the settings"));
        return 2;
    }
    useSettingsIn(settings);
    pto::gui::MainWindow window;
    QString reason = window.openReference(files.front(), true);
    if (reason.isEmpty() && parser.isSet(QStringLiteral("baseline")))
        reason = window.openBaseline(parser.value(QStringLiteral("baseline")), true);
    if (!reason.isEmpty()) {
        printError(reason);
        return 2;
    }
    const QString dir = parser.value(QStringLiteral("screenshot"));
    const QString error = pto::gui::writeScreenshots(window, dir, options);
    if (!error.isEmpty()) {
        printError(error);
        return 2;
    }
    std::fprintf(stdout, "wrote %zu view(s) and window.png to %s\n", window.views().size(),
                 dir.toLocal8Bit().constData());
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    QCommandLineParser parser;
    describeOptions(parser);
    // Read before any QApplication exists: --help, --version and the headless modes must work
    // with no display, and a QApplication without one aborts. Qt's own options (-platform,
    // -style) make this first reading fail; process() below reads them again once QApplication
    // has taken its own.
    const bool parsed = parser.parse(argumentsOf(argc, argv));
    if (parsed &&
        (parser.isSet(QStringLiteral("help")) || parser.isSet(QStringLiteral("help-all")) ||
         parser.isSet(QStringLiteral("version")))) {
        QCoreApplication core(argc, argv);
        QCoreApplication::setApplicationName(QStringLiteral("pto-studio"));
        QCoreApplication::setApplicationVersion(QStringLiteral(PTO_STUDIO_VERSION));
        parser.process(core); // prints the help or the version and exits 0
        return 0;
    }
    // Headless screenshots and the shortcut list need no display: the offscreen platform.
    const bool headless = parsed && (parser.isSet(QStringLiteral("screenshot")) ||
                                     parser.isSet(QStringLiteral("list-shortcuts")));
    if (headless && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    else if (!parsed && !haveDisplay(argc, argv)) {
        printError(parser.errorText()); // no QApplication to read Qt's options either
        return 2;
    } else if (!headless && !haveDisplay(argc, argv)) {
        printError(QStringLiteral("no display to open a window on (DISPLAY and WAYLAND_DISPLAY "
                                  "are unset); --screenshot DIR FILE pictures the views without "
                                  "one, or set QT_QPA_PLATFORM"));
        return 2;
    }
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("PTO Studio"));
    QApplication::setApplicationName(QStringLiteral("pto-studio"));
    QApplication::setApplicationVersion(QStringLiteral(PTO_STUDIO_VERSION));
    parser.process(app);
    if (parser.isSet(QStringLiteral("screenshot"))) return screenshotMode(parser);
    if (parser.isSet(QStringLiteral("list-shortcuts"))) {
        const pto::gui::MainWindow window;
        for (const auto& [action, keys] : window.shortcuts())
            std::fprintf(stdout, "%-40s %s\n", action.toLocal8Bit().constData(),
                         keys.toLocal8Bit().constData());
        return 0;
    }
    pto::gui::MainWindow window;
    window.restoreLayout();
    window.show();
    if (!parser.positionalArguments().isEmpty()) {
        window.openReference(parser.positionalArguments().front());
        if (parser.isSet(QStringLiteral("baseline")))
            window.openBaseline(parser.value(QStringLiteral("baseline")));
    } else
        window.reopenLastFile();
    return app.exec();
}
