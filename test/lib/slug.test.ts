import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { slugify } from '../../src/lib/slug.ts'

describe('slugify', () => {
  it('lower-cases and joins words with dashes', () => {
    assert.equal(slugify('Best Coffee Shops', 63), 'best-coffee-shops')
  })

  it('strips diacritics', () => {
    assert.equal(slugify('Café Guide', 63), 'cafe-guide')
    assert.equal(slugify('Crème Brûlée Ñandú', 63), 'creme-brulee-nandu')
    assert.equal(slugify('İstanbul', 63), 'istanbul')
  })

  it('folds compatibility characters (NFKD)', () => {
    assert.equal(slugify('ﬁne Ｗｉｄｅ ²', 63), 'fine-wide-2')
  })

  it('turns every run of other characters into one dash and trims dashes at both ends', () => {
    assert.equal(slugify('  --Hello,   World!!--  ', 63), 'hello-world')
    assert.equal(slugify('a_b.c/d', 63), 'a-b-c-d')
    assert.equal(slugify('AI & ML: tools', 63), 'ai-ml-tools')
  })

  it('keeps digits', () => {
    assert.equal(slugify('Top 10 Tools 2025', 63), 'top-10-tools-2025')
  })

  it('letters without a decomposition (ø) become separators', () => {
    assert.equal(slugify('Smørrebrød', 63), 'sm-rrebr-d')
  })

  it('answers an empty string when nothing is left', () => {
    assert.equal(slugify('', 63), '')
    assert.equal(slugify('!!! ???', 63), '')
    assert.equal(slugify('東京', 63), '')
  })

  it('cuts to the maximum length without leaving a trailing dash', () => {
    assert.equal(slugify('a'.repeat(100), 63), 'a'.repeat(63))
    assert.equal(slugify('abcd efgh', 5), 'abcd')
    assert.equal(slugify('abcd efgh', 6), 'abcd-e')
    assert.equal(slugify('anything', 0), '')
  })

  it('is idempotent', () => {
    for (const text of ['Café Guide', '  x--y  ', 'Top 10']) {
      const once = slugify(text, 63)
      assert.equal(slugify(once, 63), once)
    }
  })
})
