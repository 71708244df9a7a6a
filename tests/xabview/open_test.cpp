// File > Open and Open Recent: another trace replaces the one shown (the old
// loader's snapshots dropped), and every file opened heads the recent list,
// kept in QSettings -- here in a temporary directory, never the user's.
#include "find_bar.h"
#include "input_session.h"
#include "main_window.h"
#include "support.h"

#include <QAction>
#include <QMenu>
#include <QDir>
#include <QFileInfo>
#include <QMenuBar>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

#include <catch2/catch.hpp>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

TEST_CASE("File > Open Recent: another trace replaces the one shown, and the list keeps the newest first") {
  QTemporaryDir settingsDir;
  REQUIRE(settingsDir.isValid());
  QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
  QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
  QSettings(QSettings::UserScope, "xab", "xabview").clear();
  const QString cholesky = QString::fromStdString(dataPath("cholesky_hang.trace"));
  const QString deadlock = QString::fromStdString(dataPath("deadlock.trace"));

  ViewState state;
  MainWindow window(&state, ViewerOptions{});
  InputSession input(&state, {cholesky, false, 100, false, false, nullptr});
  input.addFileActions(&window);
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  input.start();
  REQUIRE(waitUntil([&] { return state.snapshot() && state.snapshot()->inputEnded; }));
  CHECK(state.size() == 33);
  CHECK(InputSession::recentFiles() == QStringList{cholesky});
  CHECK(QFile::exists(settingsDir.path() + "/xab/xabview.conf"));

  state.setPosition(5);
  state.select(3);
  input.open(deadlock);
  REQUIRE(waitUntil([&] { return state.snapshot() && state.snapshot()->inputEnded; }));
  CHECK(state.snapshot()->source.find("deadlock.trace") != std::string::npos);
  CHECK(state.size() == 7);
  CHECK(state.live());
  CHECK_FALSE(state.selected());
  CHECK(InputSession::recentFiles() == QStringList{deadlock, cholesky});
  // Find works on the new trace.
  window.findBar()->setQuery("pong recv.begin");
  CHECK(window.findBar()->find(true));

  // Open Recent's second entry is the first file again, and heads the list.
  auto* recent = window.findChild<QMenu*>("recentFiles");
  REQUIRE(recent);
  REQUIRE(recent->actions().size() == 2);
  CHECK(recent->actions()[1]->data().toString() == cholesky);
  recent->actions()[1]->trigger();
  REQUIRE(waitUntil([&] { return state.snapshot() && state.snapshot()->inputEnded && state.size() == 33; }));
  CHECK(InputSession::recentFiles() == QStringList{cholesky, deadlock});
  CHECK(recent->actions().size() == 2);
  // Opened again, a file moves to the head: never twice in the list.
  for (int i = 0; i < 10; ++i) input.open(i % 2 ? cholesky : deadlock);
  REQUIRE(waitUntil([&] { return state.snapshot() && state.snapshot()->inputEnded; }));
  CHECK(InputSession::recentFiles().size() == 2);
  QAction* open = window.findChild<QAction*>("fileOpen");
  REQUIRE(open);
  CHECK(open->isEnabled());
  CHECK(open->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_O));
  input.stop();
}

TEST_CASE("File > Open is off while the input is standard input, and a scripted session leaves the list alone") {
  QTemporaryDir settingsDir;
  REQUIRE(settingsDir.isValid());
  QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
  QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
  ViewState state;
  MainWindow window(&state, ViewerOptions{});
  InputSession input(&state, {"-", false, 100, false, false, nullptr});
  input.addFileActions(&window);
  CHECK_FALSE(window.findChild<QAction*>("fileOpen")->isEnabled());
  ViewState other;
  InputSession scripted(&other, {QString::fromStdString(dataPath("deadlock.trace")), false, 100, false, false, nullptr});
  scripted.setRemember(false);
  scripted.start();
  REQUIRE(waitUntil([&] { return other.snapshot() && other.snapshot()->inputEnded; }));
  CHECK(InputSession::recentFiles().isEmpty());
  scripted.stop();
}

TEST_CASE("The title names the file shown, and Save diagram and Export say where they wrote, under the input's name") {
  QTemporaryDir out;
  REQUIRE(out.isValid());
  const QString cholesky = QString::fromStdString(dataPath("cholesky_hang.trace"));
  const QString deadlock = QString::fromStdString(dataPath("deadlock.trace"));
  ViewState state;
  MainWindow window(&state, ViewerOptions{});
  InputSession input(&state, {cholesky, false, 100, false, false, nullptr});
  input.setRemember(false);
  input.addFileActions(&window);
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  input.start();
  REQUIRE(waitUntil([&] { return state.snapshot() && state.snapshot()->inputEnded; }));
  CHECK(window.windowTitle() == QStringLiteral("cholesky_hang.trace \u2014 xabview"));
  input.open(deadlock);
  REQUIRE(waitUntil([&] { return state.snapshot() && state.snapshot()->inputEnded && state.size() == 7; }));
  CHECK(window.windowTitle() == QStringLiteral("deadlock.trace \u2014 xabview"));

  // The dialogs offer the input's name with the format's extension.
  CHECK(suggestedName(state.snapshot()->source, ".trf") == QFileInfo(deadlock).dir().filePath("deadlock.trf"));
  CHECK(suggestedName("/tmp/evfile", ".png").toStdString() == "/tmp/evfile.png");
  CHECK(suggestedName("/tmp/run.trf", ".trf") == "/tmp/run-xabview.trf");
  CHECK(suggestedName("stdin", ".json") == "trace.json");

  const QString png = out.filePath("deadlock.png");
  REQUIRE(window.saveDiagramTo(png));
  CHECK(QFileInfo(png).size() > 0);
  CHECK(window.statusBar()->currentMessage() == "Saved the diagram to " + png);
  const QString json = out.filePath("deadlock.json");
  REQUIRE(window.exportTo(json));
  CHECK(QFileInfo(json).size() > 0);
  CHECK(window.statusBar()->currentMessage() == "Exported 7 records to " + json);
  input.stop();
}
