package toolsview

import (
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/form"
)

func formFields(t *mcp.Tool) ([]*form.Field, error) { return form.FromSchema(t.InputSchema) }
