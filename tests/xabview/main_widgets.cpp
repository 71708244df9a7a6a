// Catch2 main for the xabview widget tests: a QApplication (offscreen
// unless told otherwise).
#include "catch_session.h"

#include <QApplication>

#include <cstdlib>

int main(int argc, char** argv) {
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QApplication app(argc, argv);
  return runCatchSession(argc, argv);
}
