/**
 * The site's header and footer menus: entries added, edited, removed and moved up or down (three levels
 * deep at most, as the API takes them), then saved together. Nothing changes on the site until `Save
 * navigation`; a 400 names the failing entry's field, shown next to it.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { messageOf, unwrap } from '../../shared/api.ts'
import { useSubmit } from '../../shared/form.ts'
import { useResource } from '../../shared/resource.ts'
import { Button, formatDate, Loading, Notice, TextField, useConfirm, useToast } from '../../shared/ui.tsx'
import { type Answer, api } from '../api.ts'

type Navigation = Answer<'/api/admin/navigation'>['data']
type MenuName = keyof Navigation

interface Entry {
  /** Stable while the entry moves, so its fields keep their focus and input. */
  key: number
  label: string
  href: string
  children: Entry[]
}

type Menus = Record<MenuName, Entry[]>

const MENUS: readonly { name: MenuName; title: string }[] = [
  { name: 'header', title: 'Header' },
  { name: 'footer', title: 'Footer' },
]
/** The API's limits: 20 entries per level, 3 levels. */
const MAX_ENTRIES = 20
const MAX_DEPTH = 3

let nextKey = 1

/** An entry as the API reads it (the third level's `children` is typed as always empty). */
interface Read {
  label: string
  href: string | null
  children: readonly unknown[]
}

const isRead = (value: unknown): value is Read =>
  typeof value === 'object' && value !== null && 'label' in value && 'children' in value

function entriesOf(read: readonly unknown[]): Entry[] {
  return read.filter(isRead).map((entry) => ({
    key: nextKey++,
    label: entry.label,
    href: entry.href ?? '',
    children: entriesOf(entry.children),
  }))
}

const linkOf = (entry: Entry) => ({
  label: entry.label.trim(),
  ...(entry.href.trim() ? { href: entry.href.trim() } : {}),
})

/** The PUT body: empty links left out (a group has none), children only where there are some. */
function bodyOf(menus: Menus) {
  const menu = (entries: Entry[]) =>
    entries.map((entry) => ({
      ...linkOf(entry),
      ...(entry.children.length > 0
        ? {
            children: entry.children.map((child) => ({
              ...linkOf(child),
              ...(child.children.length > 0
                ? {
                    // The third level is links only: an empty one is sent as such, for the API to name it.
                    children: child.children.map((link) => ({
                      label: link.label.trim(),
                      href: link.href.trim(),
                    })),
                  }
                : {}),
            })),
          }
        : {}),
    }))
  return { header: menu(menus.header), footer: menu(menus.footer) }
}

/** Changes the list of entries under `parent` (a path of indexes; empty for the menu itself). */
function editList(list: Entry[], parent: readonly number[], change: (siblings: Entry[]) => Entry[]): Entry[] {
  const [index, ...rest] = parent
  if (index === undefined) return change(list)
  return list.map((entry, i) =>
    i === index ? { ...entry, children: editList(entry.children, rest, change) } : entry,
  )
}

function entryAt(list: readonly Entry[], path: readonly number[]): Entry | undefined {
  const [index, ...rest] = path
  const entry = index === undefined ? undefined : list[index]
  return entry && rest.length > 0 ? entryAt(entry.children, rest) : entry
}

const countLinks = (entries: readonly Entry[]): number =>
  entries.reduce((sum, entry) => sum + 1 + countLinks(entry.children), 0)

export function NavigationSettings() {
  const navigation = useResource((signal) => unwrap(api.GET('/api/admin/navigation', { signal })), [])
  if (navigation.error !== undefined && !navigation.data)
    return (
      <Notice kind="error">
        The navigation could not be loaded: {messageOf(navigation.error)}{' '}
        <Button onClick={navigation.reload}>Try again</Button>
      </Notice>
    )
  if (!navigation.data) return <Loading what="Loading the navigation" />
  return (
    <NavigationForm
      key={navigation.data.updatedAt ?? 'empty'}
      saved={navigation.data.data}
      updatedAt={navigation.data.updatedAt}
      onSaved={navigation.reload}
    />
  )
}

/** What an entry's controls do to the menus. */
interface Editor {
  fields: Record<string, string>
  setText: (menu: MenuName, path: readonly number[], key: 'label' | 'href', value: string) => void
  move: (menu: MenuName, path: readonly number[], by: -1 | 1) => void
  add: (menu: MenuName, parent: readonly number[]) => void
  remove: (menu: MenuName, path: readonly number[]) => Promise<void>
}

function NavigationForm({
  saved,
  updatedAt,
  onSaved,
}: {
  saved: Navigation
  updatedAt: string | null
  onSaved: () => Promise<void>
}) {
  const toast = useToast()
  const confirm = useConfirm()
  const initial = useRef<Menus>({ header: entriesOf(saved.header), footer: entriesOf(saved.footer) })
  const [menus, setMenus] = useState<Menus>(initial.current)
  const root = useRef<HTMLFormElement>(null)
  /** Where focus goes once the menus re-render: an entry's first field, or one of its move buttons. */
  const focusNext = useRef<{ key: number; target: 'field' | 'up' | 'down' } | null>(null)

  const save = useSubmit(async () => {
    await unwrap(api.PUT('/api/admin/navigation', { body: bodyOf(menus) }))
    toast('success', 'Navigation saved')
    await onSaved()
  })
  const dirty = JSON.stringify(bodyOf(menus)) !== JSON.stringify(bodyOf(initial.current))

  useEffect(() => {
    const wanted = focusNext.current
    if (!wanted) return
    focusNext.current = null
    const entry = root.current?.querySelector(`[data-entry="${wanted.key}"]`)
    if (!entry) return
    const candidates =
      wanted.target === 'field'
        ? [entry.querySelector('input')]
        : [
            entry.querySelector<HTMLButtonElement>(`[data-move="${wanted.target}"]:not(:disabled)`),
            entry.querySelector<HTMLButtonElement>('[data-move]:not(:disabled)'),
          ]
    candidates.find((element) => element)?.focus()
  }, [menus])

  // Moving, adding or removing entries shifts the positions a 400 named: its messages no longer apply.
  const reshape = (menu: MenuName, parent: readonly number[], change: (siblings: Entry[]) => Entry[]) => {
    save.reset()
    setMenus((current) => ({ ...current, [menu]: editList(current[menu], parent, change) }))
  }

  const editor: Editor = {
    fields: save.fields,
    setText: (menu, path, key, value) => {
      const index = path[path.length - 1] ?? 0
      setMenus((current) => ({
        ...current,
        [menu]: editList(current[menu], path.slice(0, -1), (siblings) =>
          siblings.map((entry, i) => (i === index ? { ...entry, [key]: value } : entry)),
        ),
      }))
    },
    move: (menu, path, by) => {
      const index = path[path.length - 1] ?? 0
      const entry = entryAt(menus[menu], path)
      if (!entry) return
      // The button pressed keeps the focus, or the other one once the entry is first or last.
      focusNext.current = { key: entry.key, target: by < 0 ? 'up' : 'down' }
      reshape(menu, path.slice(0, -1), (siblings) => {
        const target = index + by
        const moving = siblings[index]
        const other = siblings[target]
        if (!moving || !other) return siblings
        const next = [...siblings]
        next[target] = moving
        next[index] = other
        return next
      })
    },
    add: (menu, parent) => {
      const entry: Entry = { key: nextKey++, label: '', href: '', children: [] }
      focusNext.current = { key: entry.key, target: 'field' }
      reshape(menu, parent, (siblings) => [...siblings, entry])
    },
    remove: async (menu, path) => {
      const index = path[path.length - 1] ?? 0
      const entry = entryAt(menus[menu], path)
      if (!entry) return
      const inside = countLinks(entry.children)
      if (entry.label.trim() || entry.href.trim() || inside > 0) {
        const sure = await confirm({
          title: `Remove “${entry.label.trim() || 'this entry'}”?`,
          message: `It will be taken out of the ${menu} menu${
            inside > 0 ? `, with the ${inside} ${inside === 1 ? 'entry' : 'entries'} inside it` : ''
          }, when you save the navigation.`,
          confirmLabel: 'Remove',
          danger: true,
        })
        if (!sure) return
      }
      reshape(menu, path.slice(0, -1), (siblings) => siblings.filter((_, i) => i !== index))
    },
  }

  const discard = async () => {
    const sure = await confirm({
      title: 'Discard your changes?',
      message: 'The menus go back to how they were last saved.',
      confirmLabel: 'Discard changes',
      danger: true,
    })
    if (!sure) return
    save.reset()
    initial.current = { header: entriesOf(saved.header), footer: entriesOf(saved.footer) }
    setMenus(initial.current)
  }

  return (
    <form ref={root} class="form" onSubmit={save.submit} noValidate aria-label="Navigation">
      <p class="muted">
        A link is a path of the site (<code>/about</code>) or an http(s) address. An entry with entries inside
        it is a menu and may leave its link empty. Menus go three levels deep, 20 entries per level.
      </p>
      {save.error && <Notice kind="error">{save.error}</Notice>}
      <div class="nav-menus">
        {MENUS.map(({ name, title }) => (
          <section key={name} class="card" aria-labelledby={`nav-${name}`}>
            <h2 id={`nav-${name}`}>{title} menu</h2>
            {save.fields[name] && <p class="field-error">{save.fields[name]}</p>}
            {menus[name].length === 0 ? (
              <p class="muted">No entries: the site shows no {name} menu.</p>
            ) : (
              <EntryList menu={name} title={title} parent={[]} entries={menus[name]} editor={editor} />
            )}
            <Button onClick={() => editor.add(name, [])} disabled={menus[name].length >= MAX_ENTRIES}>
              Add {name} entry
            </Button>
          </section>
        ))}
      </div>
      <div class="actions settings-save">
        <Button kind="primary" type="submit" busy={save.busy}>
          Save navigation
        </Button>
        {dirty && <Button onClick={discard}>Discard changes</Button>}
        <span class="muted small">
          {dirty
            ? 'Unsaved changes'
            : updatedAt
              ? `Last saved ${formatDate(updatedAt, true)}`
              : 'Never saved'}
        </span>
      </div>
    </form>
  )
}

function EntryList({
  menu,
  title,
  parent,
  entries,
  editor,
}: {
  menu: MenuName
  title: string
  parent: readonly number[]
  entries: readonly Entry[]
  editor: Editor
}) {
  return (
    <ol class="nav-entries">
      {entries.map((entry, index) => (
        <EntryEditor
          key={entry.key}
          menu={menu}
          title={title}
          path={[...parent, index]}
          entry={entry}
          last={index === entries.length - 1}
          editor={editor}
        />
      ))}
    </ol>
  )
}

function EntryEditor({
  menu,
  title,
  path,
  entry,
  last,
  editor,
}: {
  menu: MenuName
  title: string
  path: readonly number[]
  entry: Entry
  last: boolean
  editor: Editor
}) {
  const position = path.map((i) => i + 1).join('.')
  const legend = `${title} entry ${position}`
  const name = entry.label.trim() || legend
  // `header.0.children.1`: how the API names this entry in a 400's details.
  const at = `${menu}.${path.join('.children.')}`
  const f = editor.fields
  const depth = path.length
  const index = path[path.length - 1] ?? 0
  const external = /^https?:\/\//i.test(entry.href.trim())
  return (
    <li class="nav-entry" data-entry={entry.key}>
      <fieldset>
        <legend>{legend}</legend>
        {(f[at] ?? f[`${at}.children`]) && <p class="field-error">{f[at] ?? f[`${at}.children`]}</p>}
        <div class="nav-entry-fields">
          <TextField
            label="Label"
            value={entry.label}
            onValue={(value) => editor.setText(menu, path, 'label', value)}
            error={f[`${at}.label`]}
            maxLength={60}
          />
          <TextField
            label="Link"
            value={entry.href}
            onValue={(value) => editor.setText(menu, path, 'href', value)}
            error={f[`${at}.href`]}
            placeholder={entry.children.length > 0 ? 'None: a menu' : '/about'}
            maxLength={2048}
            {...(external ? { hint: 'Opens another site' } : {})}
          />
        </div>
        <div class="nav-entry-actions">
          <Button
            data-move="up"
            onClick={() => editor.move(menu, path, -1)}
            disabled={index === 0}
            aria-label={`Move up ${name}`}
          >
            Move up
          </Button>
          <Button
            data-move="down"
            onClick={() => editor.move(menu, path, 1)}
            disabled={last}
            aria-label={`Move down ${name}`}
          >
            Move down
          </Button>
          {depth < MAX_DEPTH && (
            <Button
              onClick={() => editor.add(menu, path)}
              disabled={entry.children.length >= MAX_ENTRIES}
              aria-label={`Add sub-entry to ${name}`}
            >
              Add sub-entry
            </Button>
          )}
          <Button kind="danger" onClick={() => editor.remove(menu, path)} aria-label={`Remove ${name}`}>
            Remove
          </Button>
        </div>
        {entry.children.length > 0 && (
          <EntryList menu={menu} title={title} parent={path} entries={entry.children} editor={editor} />
        )}
      </fieldset>
    </li>
  )
}
