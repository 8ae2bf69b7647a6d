// cudart_planar.cu: an NV12 array through NVIDIA's runtime: cudaMallocArray
// with cudaChannelFormatKindNV12, cudaArrayGetInfo of the array and its
// planes, a whole frame copied in with cudaMemcpy2DToArray, the chroma
// plane read back by cudaMemcpy2DFromArray and by a kernel through a
// texture object (tex2D<uchar2>), checked against the frame built here.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

static int failures;
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("FAIL %s:%d: %s -> %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
    failures++; } } while (0)
#define EXPECT(c) do { if (!(c)) { printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
    failures++; } } while (0)

enum { W = 64, H = 32 };

__global__ void read_uv(cudaTextureObject_t t, uchar2 *out)
{
    unsigned x = threadIdx.x, y = blockIdx.x;
    out[y * blockDim.x + x] = tex2D<uchar2>(t, x + 0.5f, y + 0.5f);
}

int main()
{
    cudaChannelFormatDesc d = cudaCreateChannelDesc(8, 8, 8, 0, cudaChannelFormatKindNV12);
    cudaArray_t a = nullptr, y = nullptr, uv = nullptr;
    CHECK(cudaMallocArray(&a, &d, W, H, 0));
    CHECK(cudaArrayGetPlane(&y, a, 0));
    CHECK(cudaArrayGetPlane(&uv, a, 1));
    cudaArray_t bad = nullptr;
    EXPECT(cudaArrayGetPlane(&bad, a, 2) == cudaErrorInvalidValue);
    cudaGetLastError();
    cudaChannelFormatDesc pd;
    cudaExtent ex;
    unsigned fl;
    CHECK(cudaArrayGetInfo(&pd, &ex, &fl, a));
    EXPECT(pd.f == cudaChannelFormatKindNV12 && ex.width == W && ex.height == H);
    CHECK(cudaArrayGetInfo(&pd, &ex, &fl, y));
    EXPECT(pd.f == cudaChannelFormatKindUnsigned && pd.x == 8 && pd.y == 0 && ex.width == W &&
           ex.height == H);
    CHECK(cudaArrayGetInfo(&pd, &ex, &fl, uv));
    EXPECT(pd.f == cudaChannelFormatKindUnsigned && pd.x == 8 && pd.y == 8 && pd.z == 0 &&
           ex.width == W / 2 && ex.height == H / 2);

    static unsigned char frame[W * H * 3 / 2];
    for (unsigned i = 0; i < sizeof frame; i++)
        frame[i] = (unsigned char)(i * 13 + (i >> 7));
    CHECK(cudaMemcpy2DToArray(a, 0, 0, frame, W, W, H * 3 / 2, cudaMemcpyHostToDevice));
    static unsigned char back[W * H / 2];
    memset(back, 0xee, sizeof back);
    CHECK(cudaMemcpy2DFromArray(back, W, uv, 0, 0, W, H / 2, cudaMemcpyDeviceToHost));
    EXPECT(memcmp(back, frame + W * H, sizeof back) == 0);

    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = uv;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t = 0;
    CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    uchar2 *out = nullptr;
    CHECK(cudaMalloc(&out, W / 2 * H / 2 * sizeof(uchar2)));
    CHECK(cudaMemset(out, 0xa5, W / 2 * H / 2 * sizeof(uchar2)));
    read_uv<<<H / 2, W / 2>>>(t, out);
    CHECK(cudaGetLastError());
    static uchar2 got[W / 2 * H / 2];
    CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (unsigned r = 0; r < H / 2; r++)
        for (unsigned x = 0; x < W / 2; x++) {
            const unsigned char *p = frame + W * H + r * W + 2 * x;
            ok &= got[r * (W / 2) + x].x == p[0] && got[r * (W / 2) + x].y == p[1];
        }
    EXPECT(ok);
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFree(out));
    CHECK(cudaFreeArray(a));
    if (failures) {
        printf("FAIL cudart_planar: %d failures\n", failures);
        return 1;
    }
    printf("PASS cudart_planar\n");
    return 0;
}
