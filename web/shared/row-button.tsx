/** A row's action button: it says its action, and is named `<action> <row name>` so one row's can be found. */
import { Button } from './ui.tsx'

type RowButtonProps = Omit<Parameters<typeof Button>[0], 'children' | 'aria-label'> & {
  /** What it does: `Edit`, `Delete`, … */
  action: string
  /** The row's name, as a person reads it. */
  name: string
}

export function RowButton({ action, name, ...rest }: RowButtonProps) {
  return (
    <Button {...rest} aria-label={`${action} ${name}`}>
      {action}
    </Button>
  )
}
