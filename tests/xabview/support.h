// Helpers shared by the xabview tests.
#pragma once

#include "snapshot.h"
#include "view_state.h"

#include <QAbstractItemModel>
#include <QStringList>

#include <memory>
#include <string>

namespace xab::view::test {

std::string dataPath(const std::string& name);
// A snapshot of a whole trace file (errors included), input ended.
std::shared_ptr<ViewSnapshot> snapshotOf(const std::string& path);
std::shared_ptr<ViewSnapshot> snapshotOfText(std::string_view text);
// The first task with this name and instance.
TaskIndex taskNamed(const ViewSnapshot& s, std::string_view name, int instance);

// Attaches a QAbstractItemModelTester to `model`; its complaints land in
// messages() (a Qt message handler), so a test can CHECK there are none.
class ModelChecker {
 public:
  explicit ModelChecker(QAbstractItemModel* model);
  ~ModelChecker();
  QStringList messages() const;
 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace xab::view::test
