// Texture and surface objects.
__global__ void ktex(float *out, cudaTextureObject_t t1, cudaTextureObject_t t2, cudaSurfaceObject_t s, int w)
{
    int x = threadIdx.x, y = blockIdx.x;
    float a = tex1Dfetch<float>(t1, x);
    float4 b = tex2D<float4>(t2, x + 0.5f, y + 0.5f);
    float c = tex2DLod<float>(t2, x * 0.1f, y * 0.2f, 1.0f);
    float d;
    surf2Dread(&d, s, x * 4, y);
    surf2Dwrite(a + b.x + c + d, s, x * 4, y);
    float4 g = tex2Dgather<float4>(t2, 0.5f, 0.5f, 1);
    out[y * w + x] = b.y + b.z + b.w + g.x;
}
