// program_output.h -- the output of the program abmon starts itself
// (`abmon -- PROGRAM`, abrun).  PVM's output collection gives abmon the
// output of the tasks pvmd spawns, not of the process started from a
// shell.  The program's standard output and error are the same kind of
// file as abmon's own (where its output would have gone), so its stdio
// buffers as it would without abmon:
//   - a terminal: a pseudo-terminal, whose bytes abmon passes on;
//   - a pipe: a pipe, whose bytes abmon passes on;
//   - a regular file: the file itself (the program writes it directly, in
//     its own order); abmon reads what is added to it (inotify) from a
//     descriptor of its own.  One file for both streams is read once, as
//     stream "-";
//   - anything else (/dev/null, a socket, a device): the descriptor itself,
//     and nothing read (no `output` records).
// Each line read goes on, with its stream, to become an `output` record.
#ifndef XAB_ABMON_PROGRAM_OUTPUT_H
#define XAB_ABMON_PROGRAM_OUTPUT_H

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "output_lines.h"

namespace xab::abmon {

class ProgramOutput {
 public:
  // stream: "stdout" or "stderr"; ns: abmon's clock when it read the bytes.
  using Line = std::function<void(std::string_view stream, std::string_view line, std::int64_t ns)>;

  // passOut / passErr: where the program's stdout / stderr bytes go on to
  // (abmon's stdout, or its stderr when the trace is on stdout; its stderr).
  ProgramOutput(boost::asio::io_context& io, int passOut, int passErr, Line line);
  ~ProgramOutput();
  ProgramOutput(const ProgramOutput&) = delete;
  ProgramOutput& operator=(const ProgramOutput&) = delete;

  // Before the fork: the pipes (or terminals).  False and `error` set if not.
  bool open(std::string& error);
  // The descriptors the program gets as 1 and 2.
  int childOut() const { return streams_[0].child; }
  int childErr() const { return streams_[1].child; }
  // After the fork: abmon's copies of the program's ends closed, reading on.
  void start();
  // On stop: what the program has written by now, then its last lines
  // without '\n' (a process it left behind may hold the pipe: not waited for).
  void drainNow();

 private:
  struct Stream {
    std::string_view name;
    int pass = -1;   // where its bytes go on to
    int child = -1;  // the program's end
    std::unique_ptr<boost::asio::posix::stream_descriptor> read;
    // A regular file the program writes itself: abmon's own descriptor of
    // it, where abmon has read to, and the inotify descriptor that says
    // when it grew (`read` is unused).
    int file = -1;
    bool direct = false;  // the program writes to `pass` itself: nothing to pass on
    off_t offset = 0;
    std::unique_ptr<boost::asio::posix::stream_descriptor> watch;
    OutputLines lines;
    bool passing = true;  // false once `pass` refused a write
    std::array<char, 65536> buffer{};  // one each: both reads may be done before either handler runs
  };
  bool openOne(Stream& s, std::string& error);
  bool handOver(Stream& s, bool sameFileAsOut, std::string& error);
  void watchFile(Stream& s);
  void readFile(Stream& s);
  void readSome(Stream& s);
  void took(Stream& s, std::string_view bytes);
  void ended(Stream& s);

  boost::asio::io_context& io_;
  Line line_;
  std::array<Stream, 2> streams_;
};

}  // namespace xab::abmon

#endif
