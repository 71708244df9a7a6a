// The test drivers share the precompiled headers of the two programs
// built from this file (see tests/CMakeLists.txt).  They are programs, not
// libraries, because a header is only reused under the same code model
// (-fPIE for programs, -fPIC for libraries).
int main() { return 0; }
