// Catch2's implementation, compiled once for every test executable.  The
// single header's implementation takes half a minute to compile; each
// executable's main (catch_main.cpp, or the viewer tests' Qt mains) only
// calls runCatchSession.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "catch_session.h"

int runCatchSession(int argc, char** argv) { return Catch::Session().run(argc, argv); }
