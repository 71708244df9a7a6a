/* xab/version.h -- xab's release number, spelled here only: the top
 * CMakeLists.txt reads it for project(VERSION), and every command prints it
 * for --version. */
#ifndef XAB_VERSION_H
#define XAB_VERSION_H
#define XAB_VERSION_STRING "0.1.0"
#endif
