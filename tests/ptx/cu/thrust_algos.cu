// Thrust/CUB algorithms: large template-generated PTX (radix sort, scan,
// reduce), the kind of code real applications ship.
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>

int run(int n)
{
    thrust::device_vector<int> v(n);
    thrust::sequence(v.begin(), v.end(), n, -1);
    thrust::sort(v.begin(), v.end());
    thrust::inclusive_scan(v.begin(), v.end(), v.begin());
    return thrust::reduce(v.begin(), v.end());
}
