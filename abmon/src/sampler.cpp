#include "sampler.h"

#include <xab/traceformat/record.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <string_view>

namespace xab::abmon {
namespace {

// A small /proc file whole (they are read in one call, without stdio's
// buffer: a round reads two per task); "" when it is gone.
std::string slurp(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  char buf[4096];
  ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string{};
}

// An open /proc file again from its start; "" when its process has gone.
std::string reread(int fd) {
  char buf[4096];
  ssize_t n = ::pread(fd, buf, sizeof buf, 0);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string{};
}

// The next space-separated field of `s`, moved past.
std::string_view field(std::string_view& s) {
  std::size_t b = s.find_first_not_of(" \n");
  if (b == std::string_view::npos) return s = {}, std::string_view{};
  s.remove_prefix(b);
  std::size_t e = s.find_first_of(" \n");
  std::string_view f = s.substr(0, e);
  s.remove_prefix(e == std::string_view::npos ? s.size() : e);
  return f;
}

template <class T>
bool number(std::string_view f, T& out) {
  auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), out);
  return ec == std::errc{} && p == f.data() + f.size();
}

std::int64_t ticksToNs(std::uint64_t ticks) {
  static const long hz = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
  return static_cast<std::int64_t>(ticks) * (1'000'000'000 / hz);
}

std::int32_t clampMs(std::int64_t ns) { return static_cast<std::int32_t>(std::min<std::int64_t>(ns / 1'000'000, INT32_MAX)); }

}  // namespace

std::optional<TaskSample> parseTaskSample(std::string_view stat, std::string_view sched) {
  // "PID (COMM) STATE f4 ... utime(14) stime(15)": COMM may hold spaces and
  // parentheses, so the fields count from its last ')'.
  auto paren = stat.rfind(')');
  if (paren == std::string_view::npos) return std::nullopt;
  std::string_view rest = stat.substr(paren + 1);
  TaskSample s;
  std::string_view f = field(rest);
  if (f.size() != 1) return std::nullopt;
  s.state = f[0];
  std::uint64_t utime = 0, stime = 0;
  for (int i = 4; i <= 15; ++i) {
    f = field(rest);
    if ((i == 14 && !number(f, utime)) || (i == 15 && !number(f, stime))) return std::nullopt;
  }
  s.cpuNs = ticksToNs(utime + stime);
  // "sum_exec_runtime run_delay timeslices", in ns (sched-stats.rst).
  field(sched);
  std::int64_t delay = 0;
  if (number(field(sched), delay)) s.runnableNs = delay;
  return s;
}

std::optional<TaskSample> readTaskSample(pid_t pid, const std::string& proc) {
  std::string dir = proc + "/" + std::to_string(pid);
  return parseTaskSample(slurp(dir + "/stat"), slurp(dir + "/schedstat"));
}

std::optional<HostSample> readHostSample(const std::string& proc) {
  HostSample h;
  std::string load = slurp(proc + "/loadavg");
  std::string_view lv = load;
  std::string_view one = field(lv);
  double avg = 0;
  if (!number(one, avg)) return std::nullopt;
  h.loadMilli = static_cast<std::int64_t>(avg * 1000 + 0.5);
  std::string stat = slurp(proc + "/stat");
  std::string_view sv = stat;
  if (field(sv) != "cpu") return std::nullopt;
  // user nice system idle iowait irq softirq steal (guest is in user)
  for (int i = 0; i < 8; ++i) {
    std::uint64_t v = 0;
    if (!number(field(sv), v)) break;
    h.totalTicks += v;
    if (i != 3 && i != 4) h.busyTicks += v;
  }
  for (std::size_t at = stat.find("\ncpu"); at != std::string::npos; at = stat.find("\ncpu", at + 1)) ++h.cpus;
  return h;
}

Sampler::~Sampler() {
  for (auto& [pid, t] : open_) close(t);
}

void Sampler::close(OpenTask& t) {
  if (t.stat >= 0) ::close(t.stat);
  if (t.sched >= 0) ::close(t.sched);
  t.stat = t.sched = -1;
}

std::optional<TaskSample> Sampler::readOpen(pid_t pid) {
  auto [it, added] = open_.try_emplace(pid);
  OpenTask& t = it->second;
  if (added) {
    std::string dir = proc_ + "/" + std::to_string(pid);
    t.stat = ::open((dir + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
    t.sched = ::open((dir + "/schedstat").c_str(), O_RDONLY | O_CLOEXEC);
  }
  t.round = round_;
  std::optional<TaskSample> s;
  if (t.stat >= 0) s = parseTaskSample(reread(t.stat), t.sched >= 0 ? reread(t.sched) : std::string{});
  if (!s) {  // gone (or never there): opened afresh if it is asked for again
    close(t);
    open_.erase(it);
  }
  return s;
}

int Sampler::sample(std::string& out, std::int64_t nowNs, std::span<const SampledTask> tasks) {
  // No task of the program here: nothing to explain, nothing written (an
  // idle abmon's trace stays as it is); the next busy share starts afresh.
  if (tasks.empty()) {
    last_.reset();
    for (auto& [pid, t] : open_) close(t);
    open_.clear();
    return 0;
  }
  int written = 0;
  text::Record r;
  r.recvTime = r.time = nowNs;
  r.tid = samplerTid_;
  if (auto h = readHostSample(proc_)) {
    r.kind = Kind::HOST_LOAD;
    r.clearFields();
    r.setString(Key::Host, host_);
    r.set(Key::Cpus, h->cpus);
    r.set(Key::LoadMilli, static_cast<std::int32_t>(std::min<std::int64_t>(h->loadMilli, INT32_MAX)));
    if (last_ && h->totalTicks > last_->totalTicks) {
      auto busy = h->busyTicks - std::min(h->busyTicks, last_->busyTicks);
      r.set(Key::BusyPermille, static_cast<std::int32_t>(std::min<std::uint64_t>(
                                   1000, (busy * 1000 + (h->totalTicks - last_->totalTicks) / 2) /
                                             (h->totalTicks - last_->totalTicks))));
    }
    last_ = h;
    text::appendRecord(out, r);
    out.push_back('\n');
    ++written;
  }
  r.kind = Kind::SAMPLE;
  ++round_;
  for (const SampledTask& t : tasks) {
    auto s = readOpen(t.pid);
    if (!s) continue;
    r.clearFields();
    r.set(Key::Tid, t.tid);
    r.set(Key::CpuMs, clampMs(s->cpuNs));
    r.set(Key::RunnableMs, clampMs(s->runnableNs));
    r.setString(Key::State, std::string_view(&s->state, 1));
    text::appendRecord(out, r);
    out.push_back('\n');
    ++written;
  }
  for (auto it = open_.begin(); it != open_.end();) {
    if (it->second.round == round_) {
      ++it;
      continue;
    }
    close(it->second);
    it = open_.erase(it);
  }
  return written;
}

}  // namespace xab::abmon
