// Catch2 main for the xabview model tests: a QGuiApplication (offscreen
// unless told otherwise) so fonts, brushes and QPainter work headless.
#include "catch_session.h"

#include <QGuiApplication>

#include <cstdlib>

int main(int argc, char** argv) {
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QGuiApplication app(argc, argv);
  return runCatchSession(argc, argv);
}
