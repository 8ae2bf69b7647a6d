/* zn_lt_epilogue.c: the elementwise parts of cuBLASLt epilogues. GELU is
 * the tanh approximation cuBLASLt uses:
 *   gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
#include "zn_lt.h"

#include <math.h>

#define SQRT_2_OVER_PI 0.7978845608028654f
#define GELU_C 0.044715f

bool zn_lt_epilogue_supported(uint32_t epi)
{
    switch (epi) {
    case CUBLASLT_EPILOGUE_DEFAULT:
    case CUBLASLT_EPILOGUE_RELU:
    case CUBLASLT_EPILOGUE_BIAS:
    case CUBLASLT_EPILOGUE_RELU_BIAS:
    case CUBLASLT_EPILOGUE_GELU:
    case CUBLASLT_EPILOGUE_GELU_AUX:
    case CUBLASLT_EPILOGUE_GELU_BIAS:
    case CUBLASLT_EPILOGUE_GELU_AUX_BIAS:
    case CUBLASLT_EPILOGUE_DGELU:
    case CUBLASLT_EPILOGUE_DGELU_BGRAD:
    case CUBLASLT_EPILOGUE_BGRADA:
    case CUBLASLT_EPILOGUE_BGRADB:
        return true;
    default:
        return false;   /* the ReLU bit-mask forms (RELU_AUX, DRELU) */
    }
}

float zn_lt_gelu(float x)
{
    float u = SQRT_2_OVER_PI * (x + GELU_C * x * x * x);
    return 0.5f * x * (1.0f + tanhf(u));
}

float zn_lt_gelu_grad(float x)
{
    float u = SQRT_2_OVER_PI * (x + GELU_C * x * x * x);
    float t = tanhf(u);
    float du = SQRT_2_OVER_PI * (1.0f + 3.0f * GELU_C * x * x);
    return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * du;
}
