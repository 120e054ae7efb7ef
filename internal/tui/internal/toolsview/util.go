package toolsview

import (
	"github.com/mcpi-dev/mcpi/internal/tui/internal/form"
	"github.com/mcpi-dev/mcpi/mcp"
)

func formFields(t *mcp.Tool) ([]*form.Field, error) { return form.FromSchema(t.InputSchema) }
