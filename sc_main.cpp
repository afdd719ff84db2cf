#include <systemc>
int sc_main(int, char*[]) { return 0; }
