// libsystemc defines main() and calls sc_main(); the fuzz targets and cosim_fault run no
// simulation and have a main of their own (libFuzzer's, replay_main.cpp's, fault_main.cpp's), but
// the library still needs the symbol.
extern "C" int sc_main(int, char**) { return 0; }
