// pto-studio: the desktop viewer of PTO Studio trace files. Usage: pto-studio [FILE]
#include "gui/app/MainWindow.h"

#include <QApplication>
#include <QCommandLineParser>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("PTO Studio"));
    QApplication::setApplicationName(QStringLiteral("pto-studio"));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Views PTO Studio trace files"));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("trace file to open"));
    parser.process(app);
    pto::gui::MainWindow window;
    window.show();
    if (!parser.positionalArguments().isEmpty())
        window.openFile(parser.positionalArguments().front());
    return app.exec();
}
