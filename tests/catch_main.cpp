// The main of every test executable that needs no Qt application.
#include "catch_session.h"

int main(int argc, char** argv) { return runCatchSession(argc, argv); }
