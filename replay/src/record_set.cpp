// record_set.cpp -- reading a record directory and naming its tasks by
// spawn path (record_set.h).
#include <xab/replay/record_set.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "xab/events.h"
#include "xab/record.h"

namespace xab::replay {
namespace fs = std::filesystem;

namespace {

// The names of calls and outcomes are the record's (xab/record.h), which
// libab's replay reads back.
const char* kindName(int kind) { return xab_rec_call_name(kind); }
const char* outcomeName(int outcome) { return xab_rec_outcome_name(outcome); }

RecordedTask readRecord(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  RecordedTask t;
  t.file = file.string();
  if (!in.read(reinterpret_cast<char*>(&t.header), sizeof t.header) || t.header.magic != XAB_REC_MAGIC)
    throw std::runtime_error(t.file + ": not an xab record file");
  if (t.header.version < 1 || t.header.version > XAB_REC_VERSION)  // 1: start_ns after a first spawn
    throw std::runtime_error(t.file + ": record version " + std::to_string(t.header.version) + ", this abreplay reads 1 to " +
                             std::to_string(XAB_REC_VERSION));
  t.header.name[sizeof t.header.name - 1] = 0;
  t.header.build_id[sizeof t.header.build_id - 1] = 0;
  t.entries.resize(t.header.count);
  if (t.header.count > 0 &&
      !in.read(reinterpret_cast<char*>(t.entries.data()), std::streamsize(t.header.count * sizeof(xab_rec_entry))))
    throw std::runtime_error(t.file + ": record cut short");
  for (const auto& e : t.entries)
    if (!kindName(e.kind) || !outcomeName(e.outcome))
      throw std::runtime_error(t.file + ": entry " + std::to_string(e.seq) + " is not a receive or spawn");
  return t;
}

}  // namespace

RecordSet::RecordSet(const std::string& dir) {
  if (!fs::is_directory(dir)) throw std::runtime_error(dir + ": no such record directory");
  for (const auto& f : fs::directory_iterator(dir))
    if (f.path().extension() == ".rec") tasks_.push_back(readRecord(f.path()));
  if (tasks_.empty()) throw std::runtime_error(dir + ": holds no record (t*.rec); record with XAB_RECORD=" + dir);
  putOnReferenceClock(dir);
  assignPaths();
}

RecordSet::RecordSet(std::vector<RecordedTask> tasks) : tasks_(std::move(tasks)) {
  if (tasks_.empty()) throw std::runtime_error("no recorded task");
  assignPaths();
}

const RecordedTask* RecordSet::find(const std::string& path) const {
  for (const auto& t : tasks_)
    if (t.path == path) return &t;
  return nullptr;
}

// Roots in the order they started; each task's children in spawn order.
void RecordSet::assignPaths() {
  std::map<int, RecordedTask*> byTid;
  for (auto& t : tasks_) byTid[t.header.tid] = &t;
  std::vector<RecordedTask*> roots;
  for (auto& t : tasks_)
    if (!byTid.count(t.header.parent)) roots.push_back(&t);
  std::sort(roots.begin(), roots.end(),
            [](auto* a, auto* b) { return a->header.start_ns < b->header.start_ns; });
  std::deque<RecordedTask*> todo;
  for (size_t i = 0; i < roots.size(); ++i) {
    roots[i]->path = std::to_string(i + 1);
    todo.push_back(roots[i]);
  }
  while (!todo.empty()) {
    RecordedTask* t = todo.front();
    todo.pop_front();
    path_of_tid_[t->header.tid] = t->path;
    int child = 0;
    for (const auto& e : t->entries) {
      if (e.outcome != XAB_REC_TIDS) continue;
      for (int tid : e.v) {
        if (tid <= 0) continue;
        std::string p = t->path + "." + std::to_string(++child);
        auto it = byTid.find(tid);
        if (it != byTid.end() && it->second->path.empty()) {
          it->second->path = p;
          todo.push_back(it->second);
        } else {
          path_of_tid_[tid] = p;  // a child that never recorded anything
        }
      }
    }
  }
  std::sort(tasks_.begin(), tasks_.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
}

// Who sent a message: a path; "pvmd" (pvm_notify); "-" (no serial: a task
// without libab).
std::string RecordSet::senderOf(const xab_rec_entry& e) const {
  if (e.outcome != XAB_REC_GOT && e.outcome != XAB_REC_HANDLER) return "-";
  int src = e.v[2], serial = e.v[4];
  if (serial == 0) return (src & int(0x80000000)) ? "pvmd" : "-";
  auto it = path_of_tid_.find(src);
  return it == path_of_tid_.end() ? "-" : it->second;
}

// "<seq> <call> <outcome> <arg_src> <arg_tag> <sender> <serial> <tag> <rc>"
// (a spawn: asked count; rc the count started).  A specific source is a
// tid of that run: it is written -2 ("one task"), so that runs compare
// equal; libab checks only that the replay asks for one task too.
std::string RecordSet::callLine(const xab_rec_entry& e) const {
  std::ostringstream s;
  s << e.seq << ' ' << kindName(e.kind) << ' ' << outcomeName(e.outcome) << ' ';
  if (e.kind == XAB_EV_SPAWN) {
    s << e.v[0] << " 0 - 0 0 " << e.v[5];
  } else if (e.outcome == XAB_REC_RESULT) {  // config: nhost narch; tasks: where (0 all, -2 one) ntask
    s << (e.kind == XAB_EV_TASKS && e.v[0] != 0 ? -2 : e.v[0]) << ' ' << e.v[1] << " - 0 0 " << e.v[5];
  } else {
    bool got = e.outcome == XAB_REC_GOT || e.outcome == XAB_REC_HANDLER;
    s << (e.v[0] == -1 || e.v[0] == XAB_REC_ARG_UNKNOWN ? e.v[0] : -2) << ' ' << e.v[1] << ' ' << senderOf(e) << ' ' << (got ? e.v[4] : 0) << ' ' << (got ? e.v[3] : 0)
      << ' ' << (got ? 1 : e.v[5]);
  }
  return s.str();
}

// The lines of a task's record, in order: its calls, and after each spawn
// one "host" line per task started (the name of the host the recorded run
// put it on; "-" unknown).  Tids and pvmd tids are of that run only.
std::vector<std::string> RecordSet::lines(const RecordedTask& t) const {
  std::map<int, std::string> hostName;  // pvmd tid -> name
  for (const auto& e : t.entries)
    if (e.outcome == XAB_REC_HOSTNAME) {
      char name[sizeof e.v - sizeof e.v[0] + 1] = {};
      std::memcpy(name, &e.v[1], sizeof name - 1);
      hostName[e.v[0]] = name;
    }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < t.entries.size(); ++i) {
    const xab_rec_entry& e = t.entries[i];
    if (e.outcome != XAB_REC_HOSTS) {
      if (e.outcome != XAB_REC_TIDS && e.outcome != XAB_REC_HOSTNAME) out.push_back(callLine(e));
      continue;
    }
    int n = 0;  // the spawn's tasks so far: HOSTS entries follow each other
    for (std::size_t k = i; k > 0 && t.entries[k - 1].seq == e.seq && t.entries[k - 1].outcome == XAB_REC_HOSTS; --k) n += 6;
    for (int h : e.v) {
      if (h == 0) continue;
      auto it = hostName.find(h);
      out.push_back(std::to_string(e.seq) + ' ' + kindName(XAB_EV_SPAWN) + ' ' + outcomeName(XAB_REC_HOSTNAME) + ' ' +
                    std::to_string(++n) + " 0 " +
                    (it == hostName.end() || it->second.empty() ? "-" : it->second) + " 0 0 0");
    }
  }
  return out;
}

std::string RecordSet::dump() const {
  std::ostringstream s;
  for (const auto& t : tasks_) {
    s << t.path << " task " << t.header.name << ' ' << (t.header.exited ? "exited" : "stopped") << " after call "
      << t.header.last_seq << '\n';
    for (const auto& l : lines(t)) s << t.path << ' ' << l << '\n';
  }
  return s.str();
}

void RecordSet::writePlans(const std::string& dir) const {
  for (const auto& t : tasks_) {
    std::ofstream out(dir + "/" + t.path + ".plan");
    out << XAB_PLAN_WORD << ' ' << xab_plan_version(t.header.version) << "\n"
        << "task " << t.path << ' ' << t.header.name << ' ' << (t.header.build_id[0] ? t.header.build_id : "-") << ' '
        << t.header.last_seq << ' ' << t.header.exited << '\n';
    for (const auto& l : lines(t)) out << l << '\n';
    if (!out) throw std::runtime_error(dir + ": cannot write the replay plan");
  }
}

void RecordSet::write(const std::string& dir) const {
  fs::create_directories(dir);
  for (const auto& f : fs::directory_iterator(dir))
    if (f.path().extension() == ".rec") fs::remove(f.path());
  for (const auto& t : tasks_) {
    char name[32];
    std::snprintf(name, sizeof name, "t%x.rec", static_cast<unsigned>(t.header.tid));  // as libab names it
    xab_rec_header h = t.header;
    h.count = static_cast<std::uint32_t>(t.entries.size());
    std::ofstream out(fs::path(dir) / name, std::ios::binary);
    out.write(reinterpret_cast<const char*>(&h), sizeof h);
    out.write(reinterpret_cast<const char*>(t.entries.data()), std::streamsize(t.entries.size() * sizeof(xab_rec_entry)));
    if (!out) throw std::runtime_error(dir + ": cannot write the record");
  }
}

}  // namespace xab::replay
