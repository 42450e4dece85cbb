// main() of every GUI test: a QApplication on the offscreen platform, then GoogleTest.
#include <QApplication>
#include <QStandardPaths>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QStandardPaths::setTestModeEnabled(true); // QSettings of tests never touch the user's
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("PTO Studio Tests"));
    QApplication::setApplicationName(QStringLiteral("pto-studio-test"));
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
