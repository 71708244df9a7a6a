// program_output.h -- the output of the program abmon starts itself
// (`abmon -- PROGRAM`, abrun).  PVM's output collection gives
// abmon the output of the tasks pvmd spawns, not of the process started
// from a shell: abmon gives that process a pipe for its standard output and
// one for its standard error (a pseudo-terminal instead where abmon's own
// stream is a terminal, so an interactive program still sees a terminal and
// its stdio buffers lines as it would), passes every byte on unchanged to
// where the program's own output would have gone, and hands each line on,
// with the stream it came from, to become an `output` record.
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
    OutputLines lines;
    bool passing = true;  // false once `pass` refused a write
    std::array<char, 65536> buffer{};  // one each: both reads may be done before either handler runs
  };
  bool openOne(Stream& s, std::string& error);
  void readSome(Stream& s);
  void took(Stream& s, std::string_view bytes);
  void ended(Stream& s);

  boost::asio::io_context& io_;
  Line line_;
  std::array<Stream, 2> streams_;
};

}  // namespace xab::abmon

#endif
