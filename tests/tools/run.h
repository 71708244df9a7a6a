// Runs a command and collects its output and exit status.
#pragma once

#include <string>
#include <vector>

namespace xab::test {

struct RunResult {
  int status = -1;  // exit status, or -1 if it did not exit normally
  std::string out;  // standard output
  std::string err;  // standard error
};

// Runs argv[0] with the arguments; `input`, if not null, is written to its
// standard input (then closed).
RunResult run(const std::vector<std::string>& argv, const std::string* input = nullptr);

}  // namespace xab::test

namespace xab::test {

// A child whose standard input and output stay open while the test talks
// to it (abstat --follow).  Standard error goes to the test's.
class Child {
 public:
  explicit Child(const std::vector<std::string>& argv);
  ~Child();
  void write(const std::string& s);
  void closeInput();
  // Reads standard output until it holds `needle`; false after
  // `limitSeconds` (a safety net for a broken build, not a timing check).
  bool readUntil(const std::string& needle, int limitSeconds = 120);
  // Reads to the end and returns the exit status.
  int wait();
  const std::string& out() const { return out_; }

 private:
  int pid_ = -1, in_ = -1, outFd_ = -1;
  std::string out_;
};

}  // namespace xab::test
