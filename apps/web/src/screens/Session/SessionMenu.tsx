import type { Session } from '@kinetrace/contracts';
import { Button, Menu } from '@mantine/core';
import { useNavigate } from 'react-router';

export type SessionDialog = 'import-calibration' | 'import-videos' | 'reprocess' | 'lens-calibrations';

/**
 * §2.13 the owner's session menu: calibrate the cameras again, bring in a calibration or videos made with
 * other cameras, process every trial again with the session's current settings, the phones' lens
 * calibrations, and the session's data.
 */
export function SessionMenu({ session, onOpen }: { session: Session; onOpen: (dialog: SessionDialog) => void }) {
  const navigate = useNavigate();
  return (
    <Menu position="bottom-end" width={240}>
      <Menu.Target>
        <Button variant="default">Session menu</Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item onClick={() => void navigate(`/${session.id}/calibration`)}>Calibrate again</Menu.Item>
        <Menu.Item onClick={() => onOpen('import-calibration')}>Import a calibration file</Menu.Item>
        <Menu.Item onClick={() => onOpen('import-videos')}>Import videos as a trial</Menu.Item>
        <Menu.Item onClick={() => onOpen('reprocess')}>Reprocess the session</Menu.Item>
        <Menu.Item onClick={() => onOpen('lens-calibrations')}>Lens calibrations</Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
