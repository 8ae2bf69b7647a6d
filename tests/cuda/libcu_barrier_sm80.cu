// libcu_barrier_sm80: libcu_barrier.cu built with -arch=sm_80 (see
// tests/CMakeLists.txt), so that libcu++ takes its mbarrier path
// (mbarrier.init/arrive/arrive_drop/test_wait, cp.async with
// cp.async.mbarrier.arrive) in every flavour, beside the default arch's
// software barrier and sm_90's try_wait and cp.async.bulk.
#include "libcu_barrier.cu"
