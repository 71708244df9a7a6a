#pragma once
// Runs the Catch2 session on the command line: what every test main calls.
// Catch::Session is declared only with Catch2's implementation, which
// catch_session.cpp compiles once for all test executables.
int runCatchSession(int argc, char** argv);
