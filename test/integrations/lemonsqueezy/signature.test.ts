import { verifyLemonSqueezySignature } from '../../../src/integrations/lemonsqueezy/signature.ts'
import { hexHmacSuite } from '../payments/signature-cases.ts'

hexHmacSuite('LemonSqueezy', 'sha256', ['x-signature'], verifyLemonSqueezySignature)
