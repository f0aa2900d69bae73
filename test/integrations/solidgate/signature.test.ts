import { verifySolidgateSignature } from '../../../src/integrations/solidgate/signature.ts'
import { hexHmacSuite } from '../payments/signature-cases.ts'

hexHmacSuite('Solidgate', 'sha512', ['x-signature', 'solidgate-signature'], verifySolidgateSignature)
